/** The BM25 stopword list (about 120 words: articles, auxiliaries, pronouns, wh-words, negations, fillers). */
export const STOPWORDS: ReadonlySet<string> = new Set([
  "a", "an", "the", "and", "or", "but", "if", "then", "else", "so", "than", "that", "this", "these", "those",
  "is", "am", "are", "was", "were", "be", "been", "being", "do", "does", "did", "doing", "done", "have", "has",
  "had", "having", "will", "would", "shall", "should", "can", "could", "may", "might", "must",
  "i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves", "you", "your", "yours", "yourself",
  "he", "him", "his", "himself", "she", "her", "hers", "herself", "it", "its", "itself", "they", "them",
  "their", "theirs", "themselves", "what", "which", "who", "whom", "whose", "when", "where", "why", "how",
  "of", "at", "by", "for", "with", "about", "against", "between", "into", "through", "during", "before",
  "after", "above", "below", "to", "from", "up", "down", "in", "out", "on", "off", "over", "under", "again",
  "further", "once", "here", "there", "all", "any", "both", "each", "few", "more", "most", "other", "some",
  "such", "no", "nor", "not", "only", "own", "same", "too", "very", "s", "t", "just", "also", "as", "used",
  "use", "using", "please", "let", "lets", "ok", "okay", "yes", "yeah", "hi", "hello", "thanks", "thank"
])

const TOKEN = /[a-zA-Z0-9_]+/g

/** Lower-cased `[a-zA-Z0-9_]+` tokens, stopwords kept (for phrase matching). */
export const words = (text: string): Array<string> => text.toLowerCase().match(TOKEN) ?? []

/** BM25 tokens: lower-cased `[a-zA-Z0-9_]+` minus stopwords. */
export const tokenize = (text: string): Array<string> => words(text).filter((t) => !STOPWORDS.has(t))
