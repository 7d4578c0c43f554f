// Questions that ask for the things of one kind a person did, has or likes, and lines that mention one: "What
// activities does Melanie partake in?" is answered by examples in other words ("I'm off to go swimming with the
// kids"), which neither the question's words nor its meaning find. As namesAsked.ts does for places and names,
// plain word lists of general kinds, stemmed as the index stems (IndexAnalyzer.ts).
import { analyze } from "../search/IndexAnalyzer.js"

const ACTIVITIES =
  "swimming camping hiking painting pottery running jogging yoga surfing dancing reading cooking baking fishing cycling " +
  "biking skiing snowboarding climbing gardening knitting sewing photography volunteering kayaking skating drawing singing " +
  "meditation basketball soccer football tennis golf volleyball baseball boxing chess museum concert festival picnic " +
  "horseback marathon workout gym hike trip beach karate archery bowling sculpting journaling birdwatching"

/** Each kind: the plural nouns a question asks it by, and words that mention one of its things. */
const KINDS: ReadonlyArray<{ readonly asked: string; readonly words: string }> = [
  { asked: "activities hobbies pastimes sports", words: ACTIVITIES },
  { asked: "books novels authors", words: "book books novel novels author series reading read fantasy library bookshelf" },
  { asked: "pets animals", words: "pet pets dog dogs puppy pup cat cats kitten turtle turtles snake bird parrot fish hamster rabbit bunny horse lizard" },
  { asked: "games", words: "game games gaming tournament console xbox playstation nintendo chess board" },
  {
    asked: "recipes desserts dishes foods meals treats snacks",
    words: "recipe recipes cake cupcakes cookies pie tart ice cream icecream bread pasta soup salad dessert baked baking cooked treat chocolate mousse parfait cheesecake dish"
  },
  { asked: "movies films shows", words: "movie movies film films watched watching show series cinema theater" },
  { asked: "instruments", words: "violin clarinet guitar piano drums flute saxophone ukulele cello trumpet harp instrument" },
  { asked: "bands artists musicians concerts songs albums", words: "band concert song songs music album festival singer performance" },
  {
    asked: "events",
    words: "event events parade conference festival fair race competition tournament talk workshop seminar fundraiser ceremony concert meeting rally convention"
  }
]

const STEMMED = KINDS.map((k) => ({ asked: new Set(analyze(k.asked)), words: new Set(analyze(k.words)), text: k.words }))

/** How many words after "what" / "which" may hold the kind's noun ("What are Nate's favorite desserts?"). */
const KIND_WITHIN = 4

/** What a kind question is after: the kind's words as the index stems them, and as text to search the index with. */
export interface KindAsked {
  readonly words: ReadonlySet<string>
  readonly text: string
}

/**
 * The kind of things a question asks for as a set ("What activities…", "Which books has Tim read?"), or null: only
 * plural nouns ("What book did Tim read?" asks for one, which its own words find).
 */
export const kindAsked = (question: string): KindAsked | null => {
  const ws = question.toLowerCase().match(/[a-z]+(?:['’][a-z]+)?/g) ?? []
  for (let i = 0; i < ws.length; i++) {
    if (ws[i] !== "what" && ws[i] !== "which") continue
    for (let j = i + 1; j <= Math.min(ws.length - 1, i + KIND_WITHIN); j++) {
      const noun = ws[j]!
      if (!noun.endsWith("s") || noun.endsWith("'s") || noun.endsWith("’s")) continue
      const stem = analyze(noun)[0]
      const kind = stem === undefined ? undefined : STEMMED.find((k) => k.asked.has(stem))
      if (kind !== undefined) return { words: kind.words, text: kind.text }
    }
  }
  return null
}

/** The things of the kind a text mentions (the kind's words in it, stemmed; none: []). */
export const kindWordsIn = (text: string, kind: KindAsked): Array<string> => [...new Set(analyze(text).filter((t) => kind.words.has(t)))]
