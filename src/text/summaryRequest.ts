// A request for a summary ("Can you give me a detailed summary of how my laptop selection evolved over time,
// including the key decisions and challenges?") is mostly frame: the request, the conversation it is about, the
// parts a summary has, the course of time. Its subject is the few words left ("laptop selection"). Ranked whole,
// the frame matches any reflective line ("I'm trying to balance all these changes…") by meaning and any reply
// that lists challenges and solutions by its words; the subject is the evidence.

/** A request for a summary ("Can you summarize…", "a detailed overview of…"). */
export const SUMMARY_REQUEST = /\b(?:summar(?:y|ies|ize|ise|izing)|overview|recap)\b/i

/** Whether a query asks for a summary. */
export const isSummaryRequest = (query: string): boolean => SUMMARY_REQUEST.test(query)

const FRAME = new Set(
  [
    // the request and how much of a summary it wants
    "can could would will you please give me provide a an the some simple brief quick short thorough detailed comprehensive",
    "cohesive complete full overall general summary summaries summarize summarise summarizing overview recap rundown",
    "everything all entire whole scope aspect aspects key main important various different point points thing things topic topics",
    // the conversation it is about
    "we we've i i've i'm my me our us your discussed discuss discussion discussions conversation conversations session sessions",
    "talked talk covered cover covering mentioned learned learning went go through explored explore",
    // the course of time
    "progress progression progressed journey developed development developments evolved evolution changed over time along way",
    "throughout process start finish beginning initial final recently recent so far past few weeks months",
    // the parts a summary has
    "challenges solutions improvements optimizations adjustments decisions strategies outcomes considerations options",
    "recommendations advice tips steps methods concepts ideas examples approaches involved",
    // how a request strings them together
    "including include captures capture ties tie together integrating weaving highlighting connect connected building build upon",
    "each other how what that which and or of about regarding with in on to for from across by based as up these this those",
    "has have been had is are was were do did done it its"
  ]
    .join(" ")
    .split(" ")
)

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu

/**
 * The subject of a summary request: its words without those that frame it, in order ("Can you give me a summary of
 * how I've been managing my diabetes recently?" -> "managing diabetes"); null when the query asks for no summary or
 * names no subject ("a summary of the entire process").
 */
export const summarySubject = (query: string): string | null => {
  if (!isSummaryRequest(query)) return null
  const subject = (query.match(WORD) ?? []).filter((w) => !FRAME.has(w.toLowerCase().replace(/’/g, "'"))).join(" ")
  return subject === "" ? null : subject
}
