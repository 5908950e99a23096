/**
 * Environment variables that change how a process loads or runs: the dynamic loader's (`LD_PRELOAD`), an
 * interpreter's start-up hooks (`NODE_OPTIONS=--import=...`, `PYTHONSTARTUP`, `PERL5OPT`, `RUBYOPT`,
 * `JAVA_TOOL_OPTIONS`), the shell's (`BASH_ENV`, `ENV`, `IFS`), where programs are found (`PATH`, `HOME`) and the C
 * library's own (glibc's list of variables it ignores for setuid programs: `GCONV_PATH`, `LOCPATH`, `TZDIR`, ...).
 * A tenant that could set one as a secret would run code of its choosing inside the worker before the worker's
 * own code starts. setSecret refuses these names (400 `bad_request`), and the node agent never passes them to a
 * worker even when a bundle carries one (defence in depth).
 *
 * Pure and without imports: the API (api/secrets.ts) and the agent read the same rules.
 */

/** Names refused as they are. */
const EXACT = [
  'PATH', 'HOME', 'SHELL', 'ENV', 'IFS', 'CDPATH', 'PS4', 'PROMPT_COMMAND', 'SHELLOPTS', 'BASHOPTS',
  'TZDIR', 'LOCPATH', 'NLSPATH', 'GCONV_PATH', 'GETCONF_DIR', 'GLIBC_TUNABLES', 'HOSTALIASES', 'LOCALDOMAIN',
  'RES_OPTIONS', 'RESOLV_HOST_CONF', 'NIS_PATH', 'MALLOC_TRACE', 'TMPDIR',
  'JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS', 'JDK_JAVA_OPTIONS', 'CLASSPATH',
  'OPENSSL_CONF', 'OPENSSL_ENGINES', 'OPENSSL_MODULES',
  'PHPRC', 'PHP_INI_SCAN_DIR', 'TCLLIBPATH', 'ELECTRON_RUN_AS_NODE', 'DOTNET_STARTUP_HOOKS',
] as const;

/** Names refused by their start: every name that begins with one of these. */
const PREFIXES = ['NODE_', 'LD_', 'DYLD_', 'BASH_', 'PYTHON', 'PERL', 'RUBY', 'LUA_', 'CORECLR_', 'COR_'] as const;

const exact = new Set<string>(EXACT);
/** Names under a refused prefix that only tell a program its mode and load nothing: apps expect to set them. */
const HARMLESS = new Set(['NODE_ENV']);

/** The rule a name breaks (`NODE_*` or the name itself), or null when it may reach a worker. */
export function loaderRule(name: string): string | null {
  if (HARMLESS.has(name)) return null;
  if (exact.has(name)) return name;
  const prefix = PREFIXES.find((p) => name.startsWith(p));
  return prefix === undefined ? null : `${prefix}*`;
}

/** Every rule, as the documentation lists them: `NODE_*`, ..., then the exact names. */
export const LOADER_RULES: readonly string[] = [...PREFIXES.map((p) => `${p}*`), ...EXACT];
