// `npm run trusted-documents [-- <output>]`: the manifest of the documents the gateway trusts when
// GRAPHQL_TRUSTED_DOCUMENTS names it (gateway/trusted-documents.ts): every operation of
// examples/frontend/**/*.graphql (the frontend kit, possibly absent) and of
// rest-facade/*/operations.graphql, one document each with the fragments it uses, printed with
// graphql-js `print`, in Apollo's persisted query manifest format. Default output:
// gateway/trusted-documents.json, which is committed; a test checks it is up to date.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kind, parse, print, visit } from 'graphql';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const output = path.resolve(process.argv[2] ?? path.join(root, 'gateway', 'trusted-documents.json'));

/** Project-relative paths of the documents, sorted so that the manifest does not depend on the file system's order. */
function documentFiles() {
  const frontend = path.join(root, 'examples', 'frontend');
  const kit = existsSync(frontend)
    ? readdirSync(frontend, { recursive: true })
        .filter((file) => file.endsWith('.graphql'))
        .map((file) => path.posix.join('examples/frontend', file.split(path.sep).join('/')))
    : [];
  const facades = readdirSync(path.join(root, 'rest-facade'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(root, 'rest-facade', entry.name, 'operations.graphql')))
    .map((entry) => `rest-facade/${entry.name}/operations.graphql`);
  return [...kit, ...facades].sort();
}

/** One thrown message per problem, naming the file: the command prints it and exits 1. */
function fail(message) {
  throw new Error(message);
}

function parseFile(file) {
  try {
    return parse(readFileSync(path.join(root, file), 'utf8'), { noLocation: true });
  } catch (error) {
    return fail(`${file}:${error.locations?.[0]?.line ?? 1}: ${error.message}`);
  }
}

/**
 * A fragment is looked up in the operation's own file first, then among every file's fragments
 * (a kit may keep its fragments apart from its operations), where its name must mean one thing.
 */
function fragmentResolver(files) {
  const everywhere = new Map();
  for (const { definitions } of files) {
    for (const fragment of definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION)) {
      everywhere.set(fragment.name.value, [...(everywhere.get(fragment.name.value) ?? []), fragment]);
    }
  }
  return (name, file) => {
    const own = file.definitions.find((d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === name);
    if (own) return own;
    const found = [...new Set((everywhere.get(name) ?? []).map((fragment) => print(fragment)))];
    if (found.length === 1) return everywhere.get(name)[0];
    return fail(`${file.location}: fragment ${name} is ${found.length === 0 ? 'defined nowhere' : 'defined differently in several files'}`);
  };
}

/** The fragments a definition spreads, transitively, by name. */
function usedFragments(definition, file, resolve, used = new Map()) {
  visit(definition, {
    FragmentSpread(spread) {
      const name = spread.name.value;
      if (used.has(name)) return;
      used.set(name, resolve(name, file));
      usedFragments(used.get(name), file, resolve, used);
    },
  });
  return used;
}

/** Not localeCompare: the manifest must not depend on the machine's locale. */
function byCodePoint(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The operation first, then its fragments by name (the order of Apollo's own manifest tool). */
function entryOf(operation, file, resolve) {
  if (!operation.name) fail(`${file.location}: every operation needs a name to be listed`);
  const fragments = [...usedFragments(operation, file, resolve).values()].sort((a, b) => byCodePoint(a.name.value, b.name.value));
  const body = print({ kind: Kind.DOCUMENT, definitions: [operation, ...fragments] });
  return { id: createHash('sha256').update(body).digest('hex'), name: operation.name.value, type: operation.operation, body, location: file.location };
}

/** Sorted by name; one name is one document (the same operation in two files is listed once). */
function uniqueByName(entries) {
  const byName = new Map();
  for (const entry of entries) {
    const known = byName.get(entry.name);
    if (known && known.id !== entry.id) fail(`operation ${entry.name} is defined differently in ${known.location} and ${entry.location}`);
    byName.set(entry.name, known ?? entry);
  }
  return [...byName.values()].sort((a, b) => byCodePoint(a.name, b.name)).map(({ id, name, type, body }) => ({ id, name, type, body }));
}

function manifest() {
  const files = documentFiles().map((location) => Object.assign(parseFile(location), { location }));
  const resolve = fragmentResolver(files);
  const entries = files.flatMap((file) => file.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION).map((operation) => entryOf(operation, file, resolve)));
  return { format: 'apollo-persisted-query-manifest', version: 1, operations: uniqueByName(entries) };
}

try {
  const written = manifest();
  writeFileSync(output, `${JSON.stringify(written, null, 2)}\n`);
  console.log(`trusted-documents: ${written.operations.length} operations written to ${path.relative(process.cwd(), output) || output}`);
} catch (error) {
  console.error(`trusted-documents: ${error.message}`);
  process.exit(1);
}
