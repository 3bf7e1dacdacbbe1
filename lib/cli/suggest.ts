/** Edit distance (insertions, deletions, substitutions, adjacent swaps) between two short strings. */
function distance(a: string, b: string): number {
  const width = b.length + 1;
  const d = new Array<number>((a.length + 1) * width).fill(0);
  const at = (i: number, j: number): number => d[i * width + j] ?? 0;
  for (let i = 0; i <= a.length; i++) d[i * width] = i;
  for (let j = 0; j <= b.length; j++) d[j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      d[i * width + j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The closest of `known` to `given` when it is close enough to be a typo (at most 2 edits, and fewer than
 * half its length), else undefined.
 */
export function closest(given: string, known: readonly string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const name of known) {
    const d = distance(given, name);
    if (best === undefined || d < best.d) best = { name, d };
  }
  return best !== undefined && best.d <= 2 && best.d < given.length / 2 ? best.name : undefined;
}

/** `unknown flag "--kubconfig" (did you mean --kubeconfig?)`, or without the hint when nothing is close. */
export function unknownFlagMessage(flag: string, known: readonly string[], noun = 'flag'): string {
  const hint = closest(flag, known);
  return `unknown ${noun} "${flag}"${hint === undefined ? '' : ` (did you mean ${hint}?)`}`;
}
