import { type ASTNode, Kind, parse } from 'graphql';
import type { SubgraphSdl } from '../../gateway/compose.js';

/** A file of a subgraph's source, its path as annotations show it (relative to the repository). */
export interface SourceFile {
  path: string;
  text: string;
}

/** Where a subgraph is written: the SDL file given with `--subgraph NAME=FILE`, or the TypeScript it is built from. */
export type SubgraphSource = { subgraph: string; sdlFile: string } | { subgraph: string; code: SourceFile[] };

/** Where a change's type or field is declared, for an annotation; no line when only the file is known. */
export interface SourceLocation {
  file: string;
  line?: number;
}

/** Per type of an SDL, the line of its name and of each of its fields, input fields or enum values (an argument is at its field's). */
type SdlLines = Map<string, { line: number; members: Map<string, number> }>;

/**
 * Where each change's coordinate (`Type`, `Type.field`, `Type.field.argument`) is declared: the
 * first subgraph defining its field, else its type, the `--subgraph` files before the code's
 * (they hold what changed). In an SDL file, the line of the field, else of the type. In the code,
 * see `codeLine`. A removed type is nowhere: no location.
 */
export function changeLocator(subgraphs: SubgraphSdl[], sources: SubgraphSource[]): (coordinate: string) => SourceLocation | undefined {
  const ordered = [...sources].sort((a, b) => Number('code' in a) - Number('code' in b));
  const indexed = ordered.flatMap((source) => {
    const sdl = subgraphs.find((s) => s.name === source.subgraph)?.sdl;
    return sdl === undefined ? [] : [{ source, lines: sdlLines(sdl) }];
  });
  return (coordinate) => {
    const [type = '', field] = coordinate.split('.');
    const found = indexed.find(({ lines }) => field !== undefined && lines.get(type)?.members.has(field)) ?? indexed.find(({ lines }) => lines.has(type));
    if (!found) return undefined;
    const { source, lines } = found;
    if ('sdlFile' in source) return { file: source.sdlFile, line: lines.get(type)!.members.get(field ?? '') ?? lines.get(type)!.line };
    return codeLine(source.code, type, field);
  };
}

function sdlLines(sdl: string): SdlLines {
  const lines: SdlLines = new Map();
  const lineOf = (node: ASTNode) => node.loc!.startToken.line;
  for (const definition of parse(sdl).definitions) {
    if (!('name' in definition) || !definition.name || definition.kind === Kind.DIRECTIVE_DEFINITION) continue;
    const entry = lines.get(definition.name.value) ?? { line: lineOf(definition.name), members: new Map<string, number>() };
    const members = 'fields' in definition ? definition.fields : 'values' in definition ? definition.values : undefined;
    for (const member of members ?? []) if (!entry.members.has(member.name.value)) entry.members.set(member.name.value, lineOf(member.name));
    lines.set(definition.name.value, entry);
  }
  return lines;
}

/**
 * A type's or field's line in a subgraph's type-graphql sources. The code is cut into sections,
 * each starting at a top-level `@ObjectType(`, `@InputType(`, `@InterfaceType(`, `@ArgsType(`,
 * `@Resolver(` or `registerEnumType(`. A type is the section that names it (`@ObjectType('Record'`,
 * or an enum's `name: 'OrderDirection'`); its field, the first member of that name (`tenant!:`,
 * `owner(`) under a `@Field` or `@FieldResolver` decorator in that section or in a
 * `@Resolver(() => <its class>)` one; a `Query` or `Mutation` field, under `@Query` or `@Mutation`
 * in any resolver. Not found: the type's line, else nothing.
 */
export function codeLine(files: SourceFile[], type: string, field?: string): SourceLocation | undefined {
  const sections = files.flatMap(sectionsOf);
  const own = sections.find((s) => names(s, type));
  const typeLine = own && { file: own.file, line: own.start };
  if (field === undefined) return typeLine;
  const root = type === 'Query' || type === 'Mutation';
  const className = own && /\bclass (\w+)/.exec(own.lines.join('\n'))?.[1];
  const candidates = root ? sections.filter((s) => s.header.startsWith('@Resolver(')) : sections.filter((s) => s === own || (className && s.header.includes(`=> ${className})`)));
  const decorator = root ? new RegExp(`^\\s*@${type}\\b`) : /^\s*@(Field|FieldResolver)\b/;
  const member = memberNamed(field);
  for (const section of candidates) {
    const index = section.lines.findIndex((line, i) => member.test(line) && decoratedBy(section.lines, i, decorator));
    if (index >= 0) return { file: section.file, line: section.start + index };
  }
  return typeLine;
}

interface Section {
  file: string;
  /** Its first line's number, 1-based. */
  start: number;
  header: string;
  lines: string[];
}

function names(section: Section, type: string): boolean {
  return section.header.includes(`('${type}'`) || (section.header.startsWith('registerEnumType(') && section.lines.slice(1, 3).some((l) => l.includes(`name: '${type}'`)));
}

const SECTION_START = /^(@ObjectType\(|@InputType\(|@InterfaceType\(|@ArgsType\(|@Resolver\(|registerEnumType\()/;

function sectionsOf(file: SourceFile): Section[] {
  const sections: Section[] = [];
  file.text.split('\n').forEach((line, index) => {
    if (SECTION_START.test(line)) sections.push({ file: file.path, start: index + 1, header: line, lines: [] });
    sections.at(-1)?.lines.push(line);
  });
  return sections;
}

/** A class member's declaration: a property (`name!:`, `name?:`, `name:`) or a method (`name(`, `async name(`), a one-line decorator before it allowed. */
function memberNamed(name: string): RegExp {
  return new RegExp(`^\\s*(?:@\\w+\\(.*\\)\\s+)?(?:readonly\\s+|async\\s+)*${name}[!?]?\\s*[:(]`);
}

/**
 * Whether the nearest GraphQL decorator at or above a member's line is the expected one (`@Arg`,
 * `@Directive` are not GraphQL's members), indented as the member: a decorator's own option
 * (`description:`) is not a member.
 */
function decoratedBy(lines: string[], index: number, expected: RegExp): boolean {
  const indent = (line: string) => /^\s*/.exec(line)![0].length;
  for (let i = index; i >= 0; i -= 1) {
    if (/^\s*@(Field|FieldResolver|Query|Mutation)\b/.test(lines[i]!)) return expected.test(lines[i]!) && indent(lines[i]!) === indent(lines[index]!);
  }
  return false;
}
