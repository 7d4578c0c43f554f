import nlp from "compromise"
import { normalizeEntity, phraseTokens } from "./entities.js"

// Named entities with compromise, mapped to spaCy's labels, plus two supplements for the names its
// lexicon does not know: capitalised runs (labelled by their own words and the words before them) and
// names already known to the graph. Measured on test/fixtures/ner-fixture.json (see test/consolidate/ner.test.ts).

/** One entity found in a text. */
export interface EntityMention {
  readonly text: string
  readonly label: string
  readonly start: number
  readonly end: number
}

/** Names the graph already knows (normalised forms with their labels), indexed for fast spotting. */
export interface KnownNames {
  readonly byFirstToken: Map<string, Array<{ readonly tokens: ReadonlyArray<string>; readonly label: string }>>
}

export interface NerOptions {
  /** Labels kept (the config's ner_labels). */
  readonly labels: ReadonlySet<string>
  /** "compromise": its own tags only (the baseline); "supplemented" (default): plus capitalised runs. */
  readonly mode?: "compromise" | "supplemented"
  readonly known?: KnownNames
}

/** Text beyond this is not parsed: NER runs on every user message, and pasted logs are not prose. */
export const NER_MAX_CHARS = 8_000

interface Term {
  readonly text: string
  readonly start: number
  readonly end: number
  readonly post: string
  readonly tags: ReadonlySet<string>
}

const ORG_TAGS = ["Organization", "Company", "School", "SportsTeam"]
const PERSON_TAGS = ["Person", "FirstName", "LastName", "MaleName", "FemaleName"]
const GPE_TAGS = ["City", "Country", "Region"]
const NOT_A_NAME = ["Pronoun", "Date", "Month", "WeekDay", "Holiday", "Time", "Value", "Expression", "Determiner",
  "Preposition", "Conjunction", "QuestionWord", "Adverb", "Url", "Email", "Emoji", "Emoticon", "HashTag", "AtMention"]

// Last (or first) words that say what a name is: "Zentrox Labs", "Main Street", "Lakeshore Jazz Festival".
const ORG_LAST = new Set(("inc incorporated ltd limited llc plc corp corporation co company holdings group gmbh ag sa bv pty llp " +
  "labs lab technologies tech systems software analytics ventures capital partners robotics cloud shipping bank " +
  "university college school institute foundation association agency studio studios shelter society club hospital " +
  "clinic council ministry department academy media networks solutions consulting industries enterprises airlines " +
  "motors pharma pharmaceuticals insurance logistics foods brewery bakery records press publishing games restaurant " +
  "cafe café bistro pizzeria trattoria bar pub diner grill shop store market gym salon").split(" "))
const ORG_FIRST = new Set(["university", "bank", "college", "institute", "department", "ministry", "museum"])
const LOC_LAST = new Set(("mountains mountain mount river lake ocean sea island islands valley bay beach desert forest canyon " +
  "peninsula coast falls gulf range hills glacier").split(" "))
const FAC_LAST = new Set(("street st avenue ave road rd boulevard blvd lane bridge airport station park square stadium " +
  "tower hall museum library center centre mall arena").split(" "))
const EVENT_LAST = new Set(("festival conference summit expo championship championships cup olympics marathon parade " +
  "fair con games week").split(" "))
// Words just before a name that say what it is: "lunch with Tomasz", "at Stripe", "in Pune".
const PERSON_CUE = new Set(("with met meet meeting told tell asked ask called call emailed email texted thank thanks hi hey " +
  "hello dear friend friends sister brother wife husband son daughter manager mentor boss colleague coworker mom dad " +
  "mother father partner uncle aunt cousin niece nephew grandma grandpa grandmother grandfather girlfriend boyfriend " +
  "fiance fiancee neighbor neighbour teacher doctor named").split(" "))
const ORG_CUE = new Set("at for joined join joining founded acquired client customer vendor startup company employer from by".split(" "))
const PLACE_CUE = new Set("in to near visit visited visiting moved flew flying fly live lives lived around across into".split(" "))
const CONNECTORS = new Set(["of", "de", "da", "van", "von", "der", "del", "la", "le", "du", "bin", "al"])
// Capitalised words that are not names on their own.
const NOT_NAMES = new Set(("i hi hey hello thanks thank ok okay yes no sure well oh wow god mom dad sir madam please " +
  "sorry btw lol omg congrats congratulations woohoo yay hooray aww haha yup yep nope cheers bye api apis url uri cli sdk ui ux ci cd pr prs db sql http https json yaml csv html css js ts os vm " +
  "cpu gpu ram ssd dns ssh tls ssl id faq eta asap pdf todo fyi imo tbh").split(" "))

const hasAny = (tags: ReadonlySet<string>, list: ReadonlyArray<string>) => list.some((t) => tags.has(t))
const capitalised = (text: string) => /^\p{Lu}/u.test(text)
const stripPossessive = (text: string) => text.replace(/['’]s?$/u, "")

interface Run {
  readonly terms: ReadonlyArray<Term>
  readonly honorific: boolean
  /** The lower-cased word before the run, skipping an article. */
  readonly cue: string | null
}

const labelFromTags = (run: Run): string | null => {
  const tags = run.terms.map((t) => t.tags)
  if (tags.some((t) => hasAny(t, ORG_TAGS))) return "ORG"
  if (run.honorific || tags.some((t) => hasAny(t, PERSON_TAGS))) return "PERSON"
  if (tags.some((t) => hasAny(t, GPE_TAGS))) return "GPE"
  if (tags.some((t) => t.has("Address"))) return "FAC"
  if (tags.some((t) => t.has("Place"))) return "LOC"
  if (run.terms.length === 1 && tags[0]!.has("Demonym")) return "NORP"
  return null
}

const labelFromWords = (run: Run): string | null => {
  const words = run.terms.map((t) => stripPossessive(t.text).toLowerCase())
  const last = words[words.length - 1]!
  if (words.length > 1 && ORG_FIRST.has(words[0]!)) return "ORG"
  if (words.length > 1 || run.terms.some((t) => t.tags.has("ProperNoun"))) {
    if (ORG_LAST.has(last)) return "ORG"
    if (EVENT_LAST.has(last)) return "EVENT"
    if (LOC_LAST.has(last) || words[0] === "mount") return "LOC"
    if (FAC_LAST.has(last)) return "FAC"
  }
  return null
}

const labelFromCue = (run: Run): string | null => {
  if (run.cue === null) return run.terms.length > 1 ? "PERSON" : null
  if (PERSON_CUE.has(run.cue)) return "PERSON"
  if (ORG_CUE.has(run.cue)) return run.terms.length > 1 && run.cue === "with" ? "PERSON" : "ORG"
  if (PLACE_CUE.has(run.cue)) return run.terms.length === 1 ? "GPE" : "PERSON"
  return run.terms.length > 1 ? "PERSON" : null
}

/** A term that can be part of a name: capitalised and tagged as a noun, never a function word or date. */
const nameLike = (term: Term, atSentenceStart: boolean, mode: "compromise" | "supplemented"): boolean => {
  if (!capitalised(term.text) || hasAny(term.tags, NOT_A_NAME)) return false
  if (NOT_NAMES.has(stripPossessive(term.text).toLowerCase())) return false
  const entityTagged = hasAny(term.tags, ORG_TAGS) || hasAny(term.tags, PERSON_TAGS) || term.tags.has("Place") || term.tags.has("Demonym")
  if (mode === "compromise") return entityTagged
  if (term.tags.has("Acronym") && !entityTagged) return false
  // A sentence's first word is capitalised anyway: only a word compromise itself calls a name counts there.
  if (atSentenceStart) return entityTagged || term.tags.has("ProperNoun")
  return entityTagged || term.tags.has("ProperNoun") || term.tags.has("Noun")
}

const runsOf = (terms: ReadonlyArray<Term>, mode: "compromise" | "supplemented"): Array<Run> => {
  const runs: Array<Run> = []
  let i = 0
  while (i < terms.length) {
    const t = terms[i]!
    const honorific = t.tags.has("Honorific")
    // A sentence's first word starts a name only as part of one ("Ngozi Okonkwo-Bello reviewed ...").
    const opensName = mode === "supplemented" && i === 0 && i + 1 < terms.length && /^[\s-]+$/.test(t.post) &&
      nameLike(t, false, mode) && nameLike(terms[i + 1]!, true, mode)
    const startsHere = honorific
      ? i + 1 < terms.length && capitalised(terms[i + 1]!.text)
      : nameLike(t, i === 0, mode) || opensName
    if (!startsHere) {
      i++
      continue
    }
    const first = honorific ? i + 1 : i
    const picked: Array<Term> = [terms[first]!]
    let j = first
    // A run continues over plain spaces or hyphens, and over "of"/"van"-style connectors between names.
    while (j + 1 < terms.length && /^[\s-]*$/.test(terms[j]!.post)) {
      const next = terms[j + 1]!
      if (nameLike(next, false, mode)) {
        picked.push(next)
        j++
      } else if (mode === "supplemented" && CONNECTORS.has(next.text.toLowerCase()) && j + 2 < terms.length &&
        /^\s+$/.test(next.post) && nameLike(terms[j + 2]!, false, mode)) {
        picked.push(next, terms[j + 2]!)
        j += 2
      } else break
    }
    let k = i - 1
    if (k >= 0 && /^(the|a|an|our|my|his|her|their)$/i.test(terms[k]!.text)) k--
    const cue = k >= 0 ? terms[k]!.text.toLowerCase() : null
    runs.push({ terms: picked, honorific, cue })
    i = j + 1
  }
  return runs
}

const parseTerms = (text: string): Array<Array<Term>> => {
  type J = { terms: Array<{ text: string; post: string; tags: Array<string>; offset: { start: number; length: number } }> }
  const sentences = nlp(text).json({ offset: true, terms: { offset: true } }) as Array<J>
  return sentences.map((s) =>
    s.terms
      .filter((t) => t.text !== "")
      .map((t) => ({
        text: t.text,
        start: t.offset.start,
        // The offset covers the term without its surrounding punctuation.
        end: t.offset.start + t.offset.length,
        post: t.post,
        tags: new Set(t.tags)
      }))
  )
}

/** Spots names the graph already knows (capitalised in the text), as token phrases. */
const knownMentions = (text: string, known: KnownNames): Array<EntityMention> => {
  const out: Array<EntityMention> = []
  const words = [...text.normalize("NFC").matchAll(/[\p{L}\p{N}_]+/gu)]
  const lower = words.map((w) => w[0].toLowerCase())
  for (let i = 0; i < words.length; i++) {
    if (!/^[\p{Lu}\p{N}]/u.test(words[i]![0])) continue
    let best: { end: number; label: string } | null = null
    for (const cand of known.byFirstToken.get(lower[i]!) ?? []) {
      const n = cand.tokens.length
      if (n === 1 && cand.tokens[0]!.length < 3) continue
      if (cand.tokens.every((t, k) => lower[i + k] === t) && (best === null || i + n - 1 > best.end)) {
        best = { end: i + n - 1, label: cand.label }
      }
    }
    if (best !== null) {
      const start = words[i]!.index
      const last = words[best.end]!
      out.push({ text: text.slice(start, last.index + last[0].length), label: best.label, start, end: last.index + last[0].length })
      i = best.end
    }
  }
  return out
}

/** Adds one name (any written form) with its label to a known-names index. */
export const addKnownName = (known: KnownNames, name: string, label: string): void => {
  const tokens = phraseTokens(normalizeEntity(name))
  if (tokens.length === 0) return
  const list = known.byFirstToken.get(tokens[0]!)
  if (list === undefined) known.byFirstToken.set(tokens[0]!, [{ tokens, label }])
  else if (!list.some((k) => k.label === label && k.tokens.join(" ") === tokens.join(" "))) list.push({ tokens, label })
}

/** Indexes known entity names (normalised forms with labels) for `recognizeEntities`. */
export const knownNames = (forms: Iterable<{ readonly form: string; readonly label: string | null }>): KnownNames => {
  const known: KnownNames = { byFirstToken: new Map() }
  for (const { form, label } of forms) if (label !== null) addKnownName(known, form, label)
  return known
}

// compromise's lexicon: a sentence's capitalised first word that it knows as something other than a
// name ("Hey", "That", "Went") cannot start one, so a text with no other capitalised word needs no parse.
const LEXICON = (nlp.world() as unknown as { model: { one: { lexicon: Record<string, string | Array<string>> } } }).model.one.lexicon
const NAME_TAG = /Person|Place|Organization|Country|City|Region|FirstName|LastName|Demonym|Company|School|SportsTeam/

/** False when no word of the text could be part of a name (saves compromise's ~2 ms parse per message). */
export const mayHaveNames = (text: string): boolean => {
  for (const sentence of text.split(/(?<=[.!?])\s+|\n/)) {
    const words = sentence.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? []
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!
      if (!/^\p{Lu}/u.test(w) || /^I(['’]\p{L}+)?$/u.test(w)) continue
      if (i === 0) {
        const tag = LEXICON[w.toLowerCase()]
        if (tag !== undefined && !NAME_TAG.test(String(tag))) continue
      }
      return true
    }
  }
  return false
}

const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }) => a.start < b.end && b.start < a.end

/**
 * The named entities of a text, in order, each span once, restricted to `labels`. Parses the text once
 * (at most NER_MAX_CHARS of it).
 */
export const recognizeEntities = (input: string, options: NerOptions): Array<EntityMention> => {
  const text = input.length > NER_MAX_CHARS ? input.slice(0, NER_MAX_CHARS) : input
  const mode = options.mode ?? "supplemented"
  const found: Array<EntityMention> = []
  for (const terms of mayHaveNames(text) ? parseTerms(text) : []) {
    for (const run of runsOf(terms, mode)) {
      const label =
        mode === "compromise" ? labelFromTags(run) : (labelFromWords(run) ?? labelFromTags(run) ?? labelFromCue(run))
      if (label === null) continue
      const first = run.terms[0]!
      const last = run.terms[run.terms.length - 1]!
      let end = last.end
      const surface = text.slice(first.start, end)
      const trimmed = stripPossessive(surface)
      end -= surface.length - trimmed.length
      if (normalizeEntity(trimmed) === "") continue
      found.push({ text: trimmed, label, start: first.start, end })
    }
  }
  if (mode === "supplemented" && options.known !== undefined) {
    for (const k of knownMentions(text, options.known)) {
      const same = found.findIndex((f) => f.start === k.start && f.end === k.end)
      // The graph's label for a name it already holds wins over a guess from the words around it.
      if (same >= 0) found[same] = { ...found[same]!, label: k.label }
      else if (!found.some((f) => overlaps(f, k))) found.push(k)
    }
    found.sort((a, b) => a.start - b.start)
  }
  return found.filter((f) => options.labels.has(f.label))
}
