/**
 * Whether a sed script only edits text (SPEC §11: a command is allowed only on what the analysis
 * fully accounts for). GNU sed can also write files (`w`, `W`, `s///w`), read them (`r`, `R`) and
 * run commands (`e`, `s///e`); this reads the script as sed does and names the first command it
 * cannot vouch for. An allowlist: anything it does not know is unsafe.
 */
const SIMPLE = new Set(['d', 'D', 'p', 'P', 'n', 'N', 'g', 'G', 'h', 'H', 'x', 'l', '=', 'z', 'q', 'Q', '{', '}']);
const LABELLED = new Set(['b', 't', 'T', ':']);
const TEXT = new Set(['a', 'i', 'c']);
const S_FLAGS = /^[gpiImM0-9]*$/u;

export function unsafeSedCommand(script: string): string | undefined {
  let i = 0;
  const at = (k: number): string => script.charAt(k);
  /** Index just past the closing delimiter of a part that starts at `k`, honouring `\` escapes. */
  const part = (k: number, delimiter: string): number | undefined => {
    for (let j = k; j < script.length; j++) {
      if (at(j) === '\\') j++;
      else if (at(j) === delimiter) return j + 1;
      else if (at(j) === '\n' && delimiter !== '\n') return undefined;
    }
    return undefined;
  };
  while (i < script.length) {
    const c = at(i);
    if (/\s|;/u.test(c)) {
      i++;
      continue;
    }
    // Addresses: line numbers, `$`, /regex/ or \cREGEXc, `first~step`, `addr,+N`, then `!`.
    const address = (): boolean => {
      if (/\d/u.test(at(i))) {
        while (/[\d~]/u.test(at(i))) i++;
        return true;
      }
      if (at(i) === '$') {
        i++;
        return true;
      }
      if (at(i) === '/' || at(i) === '\\') {
        const delimiter = at(i) === '\\' ? at(i + 1) : '/';
        const end = part(at(i) === '\\' ? i + 2 : i + 1, delimiter);
        if (end === undefined) return false;
        i = end;
        while (/[IM]/u.test(at(i))) i++;
        return true;
      }
      return true;
    };
    if (!address()) return 'an address that does not end';
    if (at(i) === ',') {
      i++;
      if (at(i) === '+' || at(i) === '~') i++;
      if (!address()) return 'an address that does not end';
    }
    while (/\s|!/u.test(at(i))) i++;
    const command = at(i);
    i++;
    if (command === '#') {
      while (i < script.length && at(i) !== '\n') i++;
    } else if (command === 's' || command === 'y') {
      const delimiter = at(i);
      if (delimiter === '' || delimiter === '\\' || delimiter === '\n') return `\`${command}\` without a delimiter`;
      const first = part(i + 1, delimiter);
      const second = first === undefined ? undefined : part(first, delimiter);
      if (second === undefined) return `an unterminated \`${command}\` command`;
      i = second;
      const start = i;
      while (i < script.length && !/[\s;}]/u.test(at(i))) i++;
      const flags = script.slice(start, i);
      if (command === 's' && !S_FLAGS.test(flags)) return `\`s\` with the flags \`${flags}\` (\`w\` writes a file, \`e\` runs a command)`;
      if (command === 'y' && flags !== '') return '`y` with trailing characters';
    } else if (TEXT.has(command)) {
      // GNU one-liner text (`a text`) or `a\` lines, each continued by a final backslash.
      while (i < script.length && (at(i) !== '\n' || at(i - 1) === '\\')) i++;
    } else if (LABELLED.has(command)) {
      while (i < script.length && !/[;\n]/u.test(at(i))) i++;
    } else if (SIMPLE.has(command)) {
      if (command === 'q' || command === 'Q') while (/\d/u.test(at(i))) i++;
    } else {
      return command === '' ? 'an address without a command' : `the sed command \`${command}\` (\`w\`/\`W\` write files, \`r\`/\`R\` read them, \`e\` runs commands)`;
    }
  }
  return undefined;
}
