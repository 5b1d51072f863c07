// `npm start`: the local profile. It sets the offline defaults below (each overridable from the
// environment) and starts the built system exactly as `npm run serve` does.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sample = (version) => pathToFileURL(path.join(root, 'examples', 'models', 're-indicators-specification', version)).href;

const catalog = [
  {
    model: 're-indicators-specification',
    version: '0.0.4',
    base_url: sample('0.0.4'),
    label: 'sample model shipped with this project for the offline demo (not the published CE-RISE artifacts)',
  },
];

const profile = {
  AUTH_MODE: 'none',
  AUTH_ALLOW_INSECURE_NONE: 'true',
  REGISTRY_CATALOG_JSON: JSON.stringify(catalog),
  REGISTRY_ALLOW_FILE_URLS: 'true',
  DATABASE_URL: `file:${path.join(root, 'data', 'records.db')}`,
  ARTIFACT_BASE_URL_TEMPLATE: sample('{version}').replace('%7Bversion%7D', '{version}'),
  BACKGROUND_PROJECT_DIR: path.join(root, 'examples', 'brightway-project'),
  METRICS_ENABLED: 'true',
  GRAPHQL_INTROSPECTION: 'true',
  // GraphiQL at http://localhost:4000/graphql, from the installed packages (gateway/ide.ts).
  GRAPHQL_IDE: 'true',
  // One process on a developer's machine (`npm run serve`: one worker per core; docs/DEPLOYMENT.md).
  WORKERS: '1',
};

// The server itself prints the AUTH_MODE=none warning at startup.
const env = { ...profile, ...process.env };
const child = spawn(process.execPath, [path.join(root, 'dist', 'bundle', 'server.js')], { env, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 0));
