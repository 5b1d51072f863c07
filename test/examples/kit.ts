import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { projectPath } from '../../kernel/project.js';

/** The frontend kit (examples/frontend/) and the supergraph its codegen types it against. */
export const KIT = projectPath('examples', 'frontend');
export const SUPERGRAPH = projectPath('gateway', 'supergraph.graphql');
const TSC = projectPath('node_modules', 'typescript', 'bin', 'tsc');
const run = promisify(execFile);

/** codegen, then `tsc --noEmit`, as a frontend team runs them: the generated documents the screens import, and the compiler's verdict. */
export async function typeCheck(kit: string, supergraph: string): Promise<{ code: number; output: string }> {
  await run(process.execPath, [path.join(kit, 'codegen.mjs'), supergraph, path.join(kit, 'generated', 'graphql.ts')]);
  return run(process.execPath, [TSC, '-p', path.join(kit, 'tsconfig.json')]).then(
    () => ({ code: 0, output: '' }),
    (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
  );
}
