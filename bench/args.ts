/** Command-line options of the bench tools. */

/** Removes `name` and the value after it from `args` and returns the value; undefined when `name` is not there. */
export function takeOption(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args.splice(at, 2)[1];
}
