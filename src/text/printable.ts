// Text from memory (a message, a session id, a file name) may carry terminal escapes: printed raw, "\e]0;…\a"
// retitles the window and "\e[2J" clears it, and a newline fakes a line of output. Human output shows them
// escaped instead; --json output is JSON and needs nothing.

// C0 and C1 controls, DEL, the line and paragraph separators and the bidirectional overrides.
// eslint-disable-next-line no-control-regex -- control characters are what is being matched
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g
// eslint-disable-next-line no-control-regex -- the same, but newlines stay (they separate output lines)
const CONTROL_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" }

const escape = (c: string): string => {
  const named = NAMED[c]
  if (named !== undefined) return named
  const code = c.charCodeAt(0)
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`
}

/** One value for a terminal: every control character (newlines too) shown as an escape such as `\x1b`. */
export const printable = (text: string): string => text.replace(CONTROL, escape)

/** Lines of human output: control characters escaped, the newlines between lines kept. */
export const printableLines = (text: string): string => text.replace(CONTROL_BUT_NEWLINE, escape)
