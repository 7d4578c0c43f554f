import type { SourceRef } from "../domain/Message.js"
import type { RetrievalResult } from "../domain/Result.js"
import { normalizeText } from "../text/canonical.js"

export const CONTEXT_HEADER = "Relevant memories from previous sessions (from awhm):"
/** The session-start profile's header: what is known, not what matches a prompt. */
export const PROFILE_HEADER = "Memories from previous sessions (from awhm), newest first:"

/** A cut item shorter than this is noise: it is dropped instead. */
const MIN_ITEM_CHARS = 24
const ELLIPSIS = "…"

/** One line per memory: inner newlines would break the list. */
const oneLine = (text: string): string => text.replace(/\s+/g, " ").trim()

/** Cuts text to at most `max` characters (ellipsis included) at a word boundary when one is near. */
export const truncateClean = (text: string, max: number): string => {
  if (text.length <= max) return text
  let cut = max - ELLIPSIS.length
  // Never split a surrogate pair.
  const code = text.charCodeAt(cut - 1)
  if (code >= 0xd800 && code <= 0xdbff) cut--
  let head = text.slice(0, cut)
  const space = head.lastIndexOf(" ")
  if (space >= cut / 2) head = head.slice(0, space)
  return head.replace(/[\s,;:.!?-]+$/, "") + ELLIPSIS
}

/**
 * Drops what the prompt would only echo back: results that cite the prompt's own message, and results
 * whose normalized text is the prompt's.
 */
export const withoutEcho = (
  results: ReadonlyArray<RetrievalResult>,
  prompt: string,
  own: SourceRef
): Array<RetrievalResult> => {
  const promptKey = normalizeText(prompt)
  return results.filter(
    (r) =>
      normalizeText(r.content) !== promptKey &&
      !r.sourceRefs.some((ref) => ref.sessionId === own.sessionId && ref.messageIndex === own.messageIndex)
  )
}

const day = (iso: string) => iso.slice(0, 10)

/**
 * A memory as the prompt hook shows it: its text, and in a few words what newer-wins found about it
 * ("(updated 2024-03-20; before: 150)", "(superseded on 2024-03-20)", "(conflicts with what was said on …)").
 */
export const memoryLine = (r: RetrievalResult): string => {
  const notes: Array<string> = []
  if (r.updated !== undefined) notes.push(`updated ${day(r.updated.at)}; before: ${r.updated.before}`)
  if (r.supersededBy !== undefined) notes.push(`superseded on ${day(r.supersededBy.at)}`)
  if (r.conflictsWith !== undefined) notes.push(`conflicts with what was said${r.conflictsWith.at !== null ? ` on ${day(r.conflictsWith.at)}` : ""}`)
  const text = oneLine(r.content)
  return notes.length === 0 ? text : `${text} (${notes.join("; ")})`
}

/**
 * The additionalContext injected before the prompt: the header and one "- " line per memory, most
 * relevant first, never longer than `maxChars` (the last item that does not fit is cut cleanly).
 * Null when there is nothing to say.
 */
export const formatContext = (contents: ReadonlyArray<string>, maxChars: number, header: string = CONTEXT_HEADER): string | null => {
  const lines: Array<string> = []
  const seen = new Set<string>()
  let used = header.length
  for (const raw of contents) {
    const content = oneLine(raw)
    const key = normalizeText(content)
    if (content === "" || seen.has(key)) continue
    seen.add(key)
    const cost = 1 + 2 + content.length // "\n- " + content
    if (used + cost <= maxChars) {
      lines.push("- " + content)
      used += cost
      continue
    }
    const room = maxChars - used - 3
    if (room >= MIN_ITEM_CHARS) lines.push("- " + truncateClean(content, room))
    break
  }
  return lines.length === 0 ? null : [header, ...lines].join("\n")
}

/** The JSON Claude Code expects from a UserPromptSubmit or SessionStart hook that adds context. */
export const contextHookOutput = (hookEventName: "UserPromptSubmit" | "SessionStart", additionalContext: string): string =>
  JSON.stringify({ hookSpecificOutput: { hookEventName, additionalContext } })

/** The JSON Claude Code expects from a UserPromptSubmit hook that adds context. */
export const promptHookOutput = (additionalContext: string): string => contextHookOutput("UserPromptSubmit", additionalContext)
