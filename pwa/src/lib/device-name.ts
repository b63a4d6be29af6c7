/**
 * A name the person would recognise, from what the browser says about itself: the model on
 * Android ("Pixel 8"), iPhone or iPad, else the system; they can change it before pairing.
 */
export function browserDeviceName(ua: string): string {
  const android = /Android [\d.]+; ([^;)]+?)(?: Build\/[^;)]*)?[;)]/u.exec(ua)?.[1];
  const guess = android !== undefined && android !== 'K' ? android : /iPhone/u.test(ua) ? 'iPhone' : /iPad/u.test(ua) ? 'iPad' : /Android/u.test(ua) ? 'Android phone' : /Mac OS X/u.test(ua) ? 'Mac' : /Windows/u.test(ua) ? 'Windows PC' : /Linux/u.test(ua) ? 'Linux device' : 'Phone';
  const clean = guess.replace(/[^\p{L}\p{N} ]/gu, ' ').replace(/\s+/gu, ' ').trim().slice(0, 64);
  return clean === '' ? 'Phone' : clean;
}
