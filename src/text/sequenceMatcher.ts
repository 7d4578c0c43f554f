// Python difflib.SequenceMatcher's ratio() over characters (Ratcliff/Obershelp: the longest common block,
// then recursively the blocks left and right of it), so the entity-link guard matches the reference's.

const longestMatch = (
  a: string,
  b2j: Map<string, Array<number>>,
  alo: number,
  ahi: number,
  blo: number,
  bhi: number
): readonly [number, number, number] => {
  // difflib's dynamic programme: j2len[j] = length of the match ending at a[i-1], b[j].
  let besti = alo
  let bestj = blo
  let bestsize = 0
  let j2len = new Map<number, number>()
  for (let i = alo; i < ahi; i++) {
    const next = new Map<number, number>()
    for (const j of b2j.get(a[i]!) ?? []) {
      if (j < blo) continue
      if (j >= bhi) break
      const k = (j2len.get(j - 1) ?? 0) + 1
      next.set(j, k)
      if (k > bestsize) {
        besti = i - k + 1
        bestj = j - k + 1
        bestsize = k
      }
    }
    j2len = next
  }
  return [besti, bestj, bestsize]
}

/** Total length of the matching blocks of `a` and `b` (difflib's get_matching_blocks, summed). */
const matchedChars = (a: string, b: string): number => {
  const b2j = new Map<string, Array<number>>()
  for (let j = 0; j < b.length; j++) {
    const c = b[j]!
    const list = b2j.get(c)
    if (list === undefined) b2j.set(c, [j])
    else list.push(j)
  }
  // difflib's autojunk: in a long b, characters making up more than 1% of it are ignored as anchors.
  if (b.length >= 200) {
    const ntest = Math.floor(b.length / 100) + 1
    for (const [c, list] of b2j) if (list.length > ntest) b2j.delete(c)
  }
  let total = 0
  const queue: Array<readonly [number, number, number, number]> = [[0, a.length, 0, b.length]]
  while (queue.length > 0) {
    const [alo, ahi, blo, bhi] = queue.pop()!
    const [i, j, k] = longestMatch(a, b2j, alo, ahi, blo, bhi)
    if (k === 0) continue
    total += k
    if (alo < i && blo < j) queue.push([alo, i, blo, j])
    if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi])
  }
  return total
}

/** Similarity in [0, 1] as Python's `SequenceMatcher(None, a, b).ratio()`: 2·matches / (len a + len b). */
export const sequenceRatio = (a: string, b: string): number => {
  const total = a.length + b.length
  return total === 0 ? 1 : (2 * matchedChars(a, b)) / total
}
