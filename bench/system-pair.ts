import 'reflect-metadata';
import { readSystemConfig } from '../server/config.js';
import { type RunningSystem, startSystem } from '../server/system.js';
import { applyHeapGrowth } from '../server/heap-growth.js';

/**
 * Two systems in one process, for a figure that compares two settings (bench/processes.ts,
 * startSystemPair): `SYSTEM_PAIR` is `{"a": env, "b": env}`, each system's whole environment. They
 * share what a process has (its JIT, its heap and collector, its core), so that one setting is all
 * that differs between them. Prints `{"ports": {"a:gateway": …, "b:core": …}}` once both listen,
 * stops both at SIGTERM. The heap grows as a deployment's process lets it (side a's HEAP_GROWTH_PERCENT).
 */
const sides = JSON.parse(process.env.SYSTEM_PAIR ?? '{}') as Record<'a' | 'b', Record<string, string>>;
const configs = { a: readSystemConfig(sides.a), b: readSystemConfig(sides.b) };
applyHeapGrowth(configs.a.heapGrowthPercent);
const systems: RunningSystem[] = [];
const ports: Record<string, number> = {};
for (const side of ['a', 'b'] as const) {
  const system = await startSystem(configs[side]);
  systems.push(system);
  for (const [listener, port] of Object.entries(system.ports)) ports[`${side}:${listener}`] = port;
}
process.stdout.write(`${JSON.stringify({ ports })}\n`);
process.once('SIGTERM', () => {
  void Promise.all(systems.map((system) => system.stop())).then(() => process.exit(0));
});
