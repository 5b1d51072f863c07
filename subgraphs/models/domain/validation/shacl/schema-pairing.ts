import type { PropertyShapeInfo } from './shapes-index.js';
import { localName } from './rdf-vocabulary.js';
import { isJsonObject, type JsonObject } from '../../../../../kernel/json.js';

/**
 * DECISIONS section 3, "SHACL", last key rule: the JSON Schema property `k` whose `description`
 * equals a property shape's sh:description names that shape's path (LinkML writes one slot
 * description into both artifacts). Definitions and classes are paired by walking `$ref`s and
 * sh:classes side by side, from the root class and the definition the payload is checked against
 * (`$defs/<root class>` when the schema has it, else the schema root). Without a root class, each
 * class is paired with the definition of the same name, and the walk starts from all of them.
 *
 * Returns class IRI → (predicate IRI → schema key), for keys the name rules do not already give.
 */
export function schemaKeysByDescription(
  schema: unknown,
  rootClass: string | undefined,
  classes: Iterable<string>,
  propertyShapes: (classIri: string) => readonly PropertyShapeInfo[],
): Map<string, Map<string, string>> {
  const paired = new Map<string, Map<string, string>>();
  if (!isJsonObject(schema)) return paired;
  const pending: Array<[string, JsonObject]> = rootClass
    ? [[rootClass, definition(schema, localName(rootClass)) ?? schema]]
    : [...classes].flatMap((c): Array<[string, JsonObject]> => {
        const def = definition(schema, localName(c));
        return def ? [[c, def]] : [];
      });
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [classIri, def] = next;
    if (paired.has(classIri)) continue;
    const keys = new Map<string, string>();
    paired.set(classIri, keys);
    for (const [key, propertySchema] of Object.entries(schemaProperties(def))) {
      const shapes = propertyShapes(classIri);
      const byName = shapes.find((s) => localName(s.predicate) === key || s.name === key);
      const shape = byName ?? shapes.find((s) => s.description !== undefined && s.description === description(propertySchema));
      if (!shape) continue;
      if (!byName && !keys.has(shape.predicate)) keys.set(shape.predicate, key);
      const nested = referencedDefinition(schema, propertySchema);
      if (nested) shape.nodeClasses.forEach((c) => pending.push([c, nested]));
    }
  }
  return paired;
}

function schemaProperties(def: JsonObject): JsonObject {
  return isJsonObject(def.properties) ? def.properties : {};
}

function description(propertySchema: unknown): string | undefined {
  return isJsonObject(propertySchema) && typeof propertySchema.description === 'string' ? propertySchema.description : undefined;
}

function definition(schema: JsonObject, name: string): JsonObject | undefined {
  for (const container of [schema.$defs, schema.definitions]) {
    if (isJsonObject(container) && isJsonObject(container[name])) return container[name] as JsonObject;
  }
  return undefined;
}

/** The definition a property's objects follow: its `$ref`, its items' `$ref`, or one inside anyOf/oneOf/allOf. */
function referencedDefinition(schema: JsonObject, propertySchema: unknown, depth = 0): JsonObject | undefined {
  if (!isJsonObject(propertySchema) || depth > 8) return undefined;
  if (typeof propertySchema.$ref === 'string') return resolvePointer(schema, propertySchema.$ref);
  const nested = [propertySchema.items, ...['anyOf', 'oneOf', 'allOf'].flatMap((k) => (Array.isArray(propertySchema[k]) ? (propertySchema[k] as unknown[]) : []))];
  for (const candidate of nested) {
    const found = referencedDefinition(schema, candidate, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** Local references only (`#/$defs/X`): the walk pairs what the one schema document defines. */
function resolvePointer(schema: JsonObject, ref: string): JsonObject | undefined {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = schema;
  for (const token of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~');
    node = isJsonObject(node) ? node[key] : undefined;
  }
  return isJsonObject(node) ? node : undefined;
}
