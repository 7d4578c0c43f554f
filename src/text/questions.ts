import { matchMessage } from "./bufferPatterns.js"
import { splitSentences } from "./sentences.js"

// Whether a message only asks: a question ("Which database does staging use?") or a request ("Can you set
// up the migrations?", "Fix the login test") says nothing worth recalling later, unless it carries a fact.

const QUESTION_WORD =
  /^(what|which|who|whom|whose|where|when|why|how|do|does|did|is|are|was|were|am|can|could|would|will|should|shall|may|might|have|has|had|isn't|aren't|don't|doesn't|didn't|won't|wouldn't|can't|couldn't|shouldn't)\b/i

/** Openers of a request: polite forms, and the verbs people start a task with. */
const REQUEST_OPENER =
  /^(please|pls|kindly|let's|let us|go ahead|i want you to|i need you to|i'd like you to|i would like you to|can you|could you|would you|will you|help|add|build|change|check|clean|continue|create|debug|delete|describe|document|explain|find|fix|generate|give|implement|install|list|look|make|move|open|print|read|refactor|remove|rename|review|rewrite|run|search|set up|setup|show|start|summari[sz]e|tell|test|try|update|upgrade|write)\b/i

/** Words before the sentence proper: "Ok, fix it", "Also, can you…". */
const LEAD_IN = /^((ok(ay)?|so|now|also|and|then|hey|hi|great|thanks|thank you|cool|right)\b[\s,!.:-]*)+/i

const asksOnly = (sentence: string): boolean => {
  const s = sentence.replace(LEAD_IN, "")
  // A request that states a rule or a fact on the way ("Please always use pnpm", "Can you remember that I
  // prefer dark mode?") carries it.
  if (REQUEST_OPENER.test(s)) return !matchMessage(s).some((m) => m.type !== "outcome")
  // A sentence that ends in a full stop is a statement, even when its first word could open a question ("Will is our DBA.").
  return sentence.endsWith("?") || (QUESTION_WORD.test(s) && !/[.!]$/.test(sentence))
}

/** True when every sentence of `text` is a question or a request without a fact in it (false for empty text). */
export const isOnlyAsking = (text: string): boolean => {
  const sentences = splitSentences(text)
  return sentences.length > 0 && sentences.every((s) => asksOnly(s.text))
}
