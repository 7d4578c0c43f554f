// Questions that ask for a place, a person or a title, and lines that name one: "Which cities has Jon visited?" is
// answered by the line that names the city ("Took a short trip last week to Rome"), often in other words than
// the question's; "Who did John go to yoga with?" by the line that names the friend. As timeReference.ts does
// for "when", plain patterns, cheap enough to test every candidate line of a query.

/** A question that asks where, or which place (a city, a country, a state…). */
const ASKS_PLACE =
  /^\W*where\b|\b(?:which|what)\s+(?:\w+\s+)?(?:city|cities|country|countries|state|states|town|towns|place|places|location|locations|area|areas|region|regions|park|parks|beach|beaches|island|islands)\b/i

/** A question that asks who, or for people's names. */
const ASKS_PERSON = /^\W*(?:who|whom)\b|\bwhat\s+(?:is|are|was|were)\s+the\s+names?\s+of\b|\bwhat\s+people\b/i

/** A question that asks which book, film, game, band, song or show: a title or a name answers it (not "which one shows…"). */
const ASKS_TITLE = /\b(?:which|what)\s+(?!one\b|ones\b)(?:\w+\s+)?(?:books?|novels?|movies?|films?|games?|bands?|artists?|songs?|shows?|series|authors?|albums?|musicians?)\b/i

/** Whether a question asks for a place, a person or a title by name. */
export const asksName = (question: string): boolean => ASKS_PLACE.test(question) || ASKS_PERSON.test(question) || ASKS_TITLE.test(question)

/**
 * Capitalised words that are not names: the first person, greetings and exclamations that open a sentence
 * after a comma or a dash ("Hey Jon! …, Thanks"), weekdays and months (a time, not a place or a person).
 */
const NOT_NAMES = new Set(
  (
    "i i'm i've i'll i'd hey hi hello wow thanks thank yeah yes no oh ok okay congrats awesome great good nice sure cool " +
    "aww haha hmm lol omg mom dad god monday tuesday wednesday thursday friday saturday sunday january february march april " +
    "may june july august september october november december"
  ).split(" ")
)

/** A capitalised word: an upper-case letter, then lower-case letters (an apostrophe allowed: "O'Neil"). */
const CAPITALISED = /[A-Z][a-z]+(?:['’][a-z]+)?/g

/**
 * Whether a line names a place, a person or a title: a capitalised word that does not start a sentence (nor follow a
 * speaker's "Name: " or an opening quote or bracket), is not one of NOT_NAMES and is not one of `known` (lower
 * case: the question's own names, the line's author). "Took a short trip last week to Rome" names one; "Hey
 * Jon! I went to the beach" does not when Jon is known.
 */
export const namesOne = (text: string, known: ReadonlySet<string>): boolean => {
  CAPITALISED.lastIndex = 0
  for (let m = CAPITALISED.exec(text); m !== null; m = CAPITALISED.exec(text)) {
    const word = m[0].toLowerCase()
    if (NOT_NAMES.has(word) || known.has(word) || known.has(word.replace(/['’]s$/, ""))) continue
    if (startsSentence(text, m.index)) continue
    return true
  }
  return false
}

/** Whether the word at `at` opens a sentence: the text's start, or after . ! ? : " ( [ and spaces. */
const startsSentence = (text: string, at: number): boolean => {
  let i = at - 1
  while (i >= 0 && /\s/.test(text[i]!)) i--
  return i < 0 || /[.!?:"“([]/.test(text[i]!)
}
