/**
 * Pure Windows path rules (SPEC §5 steps 2, 3, 5 and the reserved names), tested on every OS.
 */

/**
 * `\\.\`, `\\?\`, `\??\` and their forward-slash spellings reach devices and the NT object
 * namespace, bypassing every Win32 normalisation we rely on.
 */
export function isDevicePath(raw: string): boolean {
  const s = raw.replaceAll('/', '\\');
  return /^\\\\[.?](?:\\|$)/u.test(s) || /^\\\?\?(?:\\|$)/u.test(s);
}

/** `\\server\share` and `//server/share`. */
export function isUncPath(raw: string): boolean {
  return /^[\\/]{2}/u.test(raw);
}

// CON, PRN, AUX, NUL, COM0-9, LPT0-9 (and the superscript digits Windows also honours),
// CONIN$, CONOUT$, CLOCK$: reserved with any extension and any trailing spaces.
const RESERVED = /^(?:con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3]|conin\$|conout\$|clock\$)$/iu;

export function isReservedName(segment: string): boolean {
  const stem = segment.split('.')[0]?.trimEnd() ?? '';
  return RESERVED.test(stem);
}

/** Win32 silently strips trailing dots and spaces, so `Windows.` opens `Windows`. */
export function hasTrailingDotOrSpace(segment: string): boolean {
  return segment !== '.' && segment !== '..' && /[. ]$/u.test(segment);
}

/** `PROGRA~1`: a component that may be an 8.3 alias of another name. */
export function looksLikeShortName(segment: string): boolean {
  return /~[0-9]/u.test(segment);
}
