/**
 * The CLI's command tree: each command declares its arguments, options and an
 * example once, and parsing, `--help`, usage errors (exit 2) and the `--json`
 * output mode all come from that declaration, so no command can lack them.
 */
import { parseArgs } from 'node:util';
import { closestName } from '../domain/input';

export interface Option {
  /** The long name, without `--`. */
  readonly name: string;
  readonly short?: string;
  /** The value's placeholder (`<tag,...>`); absent for a flag that takes no value. */
  readonly value?: string;
  readonly help: string;
}

/** Where a command writes. In --json mode stdout gets exactly one JSON document. */
export interface Output {
  readonly json: boolean;
  /** Writes text as given. */
  write(text: string): void;
  /** Writes lines for people; nothing in --json mode. */
  lines(...text: string[]): void;
  /** The command's one JSON document (written only in --json mode). */
  document(value: unknown): void;
  /** A warning on stderr (a JSON line in --json mode). */
  warn(text: string): void;
}

export interface Invocation {
  readonly options: Readonly<Record<string, string | boolean | undefined>>;
  readonly args: readonly string[];
  /** What follows `--` (commands with `rest`). */
  readonly rest: readonly string[];
  readonly out: Output;
}

export interface Command {
  readonly name: string;
  /** Positional arguments, for the usage line (`<key>`). */
  readonly args?: string;
  readonly minArgs?: number;
  readonly maxArgs?: number;
  /** The message when more arguments than maxArgs are given (they are never echoed). */
  readonly tooManyArgs?: string;
  /** The usage line's part after `--`, for commands that run another command. */
  readonly rest?: string;
  readonly summary: string;
  /** More lines for --help. */
  readonly details?: readonly string[];
  readonly options: readonly Option[];
  readonly examples: readonly string[];
  /** Resolves with the exit code (default 0). */
  run(invocation: Invocation): Promise<number | void>;
}

export interface Group {
  readonly name: string;
  readonly summary: string;
  readonly commands: readonly (Command | Group)[];
  /** The root's: `--version` prints it (`<name> <version>`, or `{"name", "version"}` with --json). */
  readonly version?: string;
}

export const JSON_OPTION: Option = { name: 'json', help: 'print one JSON document on stdout (errors as JSON on stderr)' };
const HELP_OPTION: Option = { name: 'help', short: 'h', help: 'show this help' };

/** A mistake in how the command was called: exit 2, with the usage line. */
export class UsageError extends Error {
  constructor(message: string, readonly usage: string) {
    super(message);
  }
}

/** A failure to report (exit 1 unless said); `details` go into the --json error document. */
export class CliError extends Error {
  constructor(message: string, readonly details: Record<string, unknown> = {}, readonly exitCode = 1) {
    super(message);
  }
}

export interface Io {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

const isGroup = (node: Command | Group): node is Group => 'commands' in node;
const allOptions = (command: Command) => [...command.options, JSON_OPTION, HELP_OPTION];

/** Runs argv against the tree; resolves with the process's exit code. */
export async function dispatch(root: Group, argv: readonly string[], io: Io): Promise<number> {
  const terminator = argv.indexOf('--');
  const json = (terminator === -1 ? argv : argv.slice(0, terminator)).includes('--json');
  const out = output(io, json);
  try {
    return await walk(root, [root.name], argv, out);
  } catch (error) {
    return report(error, out, io);
  }
}

async function walk(group: Group, path: string[], argv: readonly string[], out: Output): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '-h' || first === '--help') {
    out.write(groupHelp(group, path));
    return 0;
  }
  if (first === '--version' && group.version !== undefined) {
    out.lines(`${group.name} ${group.version}`);
    out.document({ name: group.name, version: group.version });
    return 0;
  }
  if (first === undefined || first.startsWith('-')) {
    const what = first === undefined ? 'a command is missing' : `unknown option ${optionName(first)} (a command comes first)`;
    throw new UsageError(`${what}; commands: ${group.commands.map((c) => c.name).join(', ')}`, groupUsage(path));
  }
  const next = group.commands.find((c) => c.name === first);
  if (next === undefined) {
    const names = group.commands.map((c) => c.name);
    throw new UsageError(`unknown command "${first}" for ${path.join(' ')}${didYouMean(first, names)}; commands: ${names.join(', ')}`, groupUsage(path));
  }
  if (isGroup(next)) return walk(next, [...path, next.name], rest, out);
  return runCommand(next, [...path, next.name], rest, out);
}

async function runCommand(command: Command, path: string[], argv: readonly string[], out: Output): Promise<number> {
  const terminator = argv.indexOf('--');
  const own = terminator === -1 || command.rest === undefined ? argv : argv.slice(0, terminator);
  const rest = terminator === -1 || command.rest === undefined ? [] : argv.slice(terminator + 1);
  if (own.includes('--help') || own.includes('-h')) {
    out.write(commandHelp(command, path));
    return 0;
  }
  const invocation = parse(command, path, own, rest, out);
  return (await command.run(invocation)) ?? 0;
}

/**
 * Parses leniently, then checks every token against the declaration, so each
 * message is ours: it names the option, never echoes a value or an extra
 * argument (either might be a secret typed in the wrong place).
 */
function parse(command: Command, path: string[], argv: readonly string[], rest: readonly string[], out: Output): Invocation {
  const usage = commandUsage(command, path);
  const declared = allOptions(command);
  const { values, positionals, tokens } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: false,
    tokens: true,
    options: Object.fromEntries(declared.map((o) => [o.name, { type: o.value === undefined ? 'boolean' : 'string', ...(o.short ? { short: o.short } : {}) }] as const)),
  });
  for (const token of tokens) {
    if (token.kind === 'option-terminator') {
      throw new UsageError(`${path.join(' ')} takes nothing after --`, usage);
    }
    if (token.kind !== 'option') continue;
    const option = declared.find((o) => o.name === token.name);
    if (option === undefined) {
      const hint = token.rawName.startsWith('--') ? didYouMean(token.name, declared.map((o) => o.name), '--') : '';
      throw new UsageError(`unknown option ${token.rawName} for ${path.join(' ')}${hint}`, usage);
    }
    if (option.value !== undefined && token.value === undefined) throw new UsageError(`option --${option.name} needs a value ${option.value}`, usage);
    if (option.value === undefined && token.inlineValue) throw new UsageError(`option --${option.name} takes no value`, usage);
  }
  const min = command.minArgs ?? 0;
  const max = command.maxArgs ?? min;
  if (positionals.length < min) throw new UsageError(`missing ${command.args ?? 'arguments'}`, usage);
  if (positionals.length > max) {
    throw new UsageError(command.tooManyArgs ?? `too many arguments: ${path.join(' ')} takes ${max === 0 ? 'none' : command.args}`, usage);
  }
  if (command.rest !== undefined && rest.length === 0) throw new UsageError(`missing ${command.rest}`, usage);
  return { options: values, args: positionals, rest, out };
}

function output(io: Io, json: boolean): Output {
  return {
    json,
    write: io.stdout,
    lines: (...text) => {
      if (!json) io.stdout(text.map((line) => line + '\n').join(''));
    },
    document: (value) => {
      if (json) io.stdout(JSON.stringify(value) + '\n');
    },
    warn: (text) => io.stderr(json ? JSON.stringify({ warning: text }) + '\n' : `warning: ${text}\n`),
  };
}

function report(error: unknown, out: Output, io: Io): number {
  if (error instanceof UsageError) {
    const message = error.message;
    io.stderr(out.json
      ? JSON.stringify({ error: { kind: 'usage', message, usage: error.usage } }) + '\n'
      : `error: ${message}\nusage: ${error.usage}\n(add --help for the options and an example)\n`);
    return 2;
  }
  const message = error instanceof Error ? error.message : String(error);
  const details = error instanceof CliError ? error.details : {};
  io.stderr(out.json ? JSON.stringify({ error: { kind: 'failed', message, ...details } }) + '\n' : `error: ${message}\n`);
  return error instanceof CliError ? error.exitCode : 1;
}

/** ` (did you mean "secrets"?)` for a name within two edits of exactly one closest name (the admin API's own rule), else nothing. */
function didYouMean(typed: string, names: readonly string[], prefix = ''): string {
  const hint = closestName(typed, names);
  return hint === undefined ? '' : ` (did you mean ${prefix === '' ? `"${hint}"` : `${prefix}${hint}`}?)`;
}

/** An option as typed, without an inline value (`--value=x` → `--value`). */
const optionName = (arg: string) => arg.split('=')[0]!;

const groupUsage = (path: string[]) => `${path.join(' ')} <command> [options]`;

export function commandUsage(command: Command, path: string[]): string {
  return [...path, command.args, '[options]', command.rest === undefined ? undefined : `-- ${command.rest}`].filter(Boolean).join(' ');
}

function table(rows: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}

export function commandHelp(command: Command, path: string[]): string {
  const options = allOptions(command).map((o) => [
    `${o.short ? `-${o.short}, ` : '    '}--${o.name}${o.value ? ` ${o.value}` : ''}`,
    o.help,
  ] as const);
  return [
    `usage: ${commandUsage(command, path)}`,
    '',
    command.summary,
    ...(command.details ?? []),
    '',
    'options:',
    ...table(options),
    '',
    command.examples.length === 1 ? 'example:' : 'examples:',
    ...command.examples.map((e) => `  ${e}`),
    '',
  ].join('\n');
}

export function groupHelp(group: Group, path: string[]): string {
  return [
    `usage: ${groupUsage(path)}`,
    '',
    group.summary,
    '',
    'commands:',
    ...table(group.commands.map((c) => [c.name, c.summary] as const)),
    '',
    // Only the root has options of its own: --version, beside --help.
    ...(group.version === undefined ? [] : [
      'options:',
      ...table([['    --version', `print the version of this CLI (${group.name} ${group.version}; with --json, {"name", "version"})`], [`-${HELP_OPTION.short}, --${HELP_OPTION.name}`, HELP_OPTION.help]]),
      '',
    ]),
    `Add --help after a command for its options and an example (${path.join(' ')} ${group.commands[0]!.name} --help).`,
    '',
  ].join('\n');
}

/** Every command and group with its path, for docs/cli.md's command table and the help tests. */
export function everyPath(group: Group, path: string[] = [group.name]): { path: string[]; node: Command | Group }[] {
  return [
    { path, node: group },
    ...group.commands.flatMap((c) => (isGroup(c) ? everyPath(c, [...path, c.name]) : [{ path: [...path, c.name], node: c }])),
  ];
}

/** `a, b ,c` → ['a', 'b', 'c']; undefined stays undefined. */
export function commaList(text: string | boolean | undefined): string[] | undefined {
  return typeof text === 'string' ? text.split(',').map((s) => s.trim()).filter(Boolean) : undefined;
}

/** Lines of a left-aligned table with a header, for people. */
export function columns(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)];
}
