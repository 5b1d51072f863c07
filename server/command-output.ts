/**
 * Where a command writes its lines (each without its newline): standard output and standard error,
 * or what a caller collects, a test running the command in its own process.
 */
export interface CommandOutput {
  out(line: string): void;
  err(line: string): void;
}

export const STANDARD_OUTPUT: CommandOutput = { out: (line) => console.log(line), err: (line) => console.error(line) };
