// Plain sentence splitting: no NLP library, so the prompt hook can use it too.

export interface Sentence {
  readonly text: string
  readonly start: number
  readonly end: number
}

// Abbreviations whose full stop does not end a sentence.
const ABBREVIATIONS = new Set(("mr mrs ms dr prof st sr jr vs etc e.g i.e eg ie inc ltd co corp no approx dept est " +
  "fig mt ft u.s a.m p.m jan feb mar apr jun jul aug sep sept oct nov dec").split(" "))

/**
 * Splits a message into sentences: after `.`, `!` or `?` followed by white space (not after a known
 * abbreviation or a single initial), and at line breaks. Offsets point into the original text.
 */
export const splitSentences = (text: string): Array<Sentence> => {
  const out: Array<Sentence> = []
  const push = (start: number, end: number) => {
    const raw = text.slice(start, end)
    const lead = raw.length - raw.trimStart().length
    const body = raw.trim()
    if (body !== "") out.push({ text: body, start: start + lead, end: start + lead + body.length })
  }
  let start = 0
  const boundary = /[.!?]+(?=\s)|\r?\n/g
  for (const m of text.matchAll(boundary)) {
    const end = m.index + m[0].length
    if (m[0].startsWith(".") && m[0].length === 1) {
      const word = /(\S+)$/.exec(text.slice(start, m.index))?.[1]?.toLowerCase() ?? ""
      if (ABBREVIATIONS.has(word) || ABBREVIATIONS.has(word.replace(/^\W+/, "")) || /^\p{L}$/u.test(word)) continue
    }
    push(start, end)
    start = end
  }
  push(start, text.length)
  return out
}
