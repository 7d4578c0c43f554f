import * as fs from "node:fs"

const TAIL_BYTES = 512 * 1024

const textOf = (content: unknown): string => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  return content
    .flatMap((block: unknown) =>
      typeof block === "object" && block !== null && (block as { type?: unknown }).type === "text" &&
      typeof (block as { text?: unknown }).text === "string"
        ? [(block as { text: string }).text]
        : []
    )
    .join("\n")
}

/**
 * The text of the last assistant message of the current turn in a Claude Code transcript (JSONL), read
 * from the file's tail; null when the turn has none or the file cannot be read. Used when the Stop payload has no
 * last_assistant_message (older Claude Code versions).
 */
export const lastAssistantText = (transcriptPath: string): string | null => {
  let fd: number
  try {
    fd = fs.openSync(transcriptPath, "r")
  } catch {
    return null
  }
  try {
    const size = fs.fstatSync(fd).size
    const length = Math.min(size, TAIL_BYTES)
    const buf = Buffer.alloc(length)
    fs.readSync(fd, buf, 0, length, size - length)
    const lines = buf.toString("utf8").split("\n")
    for (let i = lines.length - 1; i >= 0; i--) {
      let json: unknown
      try {
        json = JSON.parse(lines[i]!)
      } catch {
        continue // blank or cut by the tail window
      }
      if (typeof json !== "object" || json === null) continue
      const { type, message } = json as { type?: unknown; message?: { role?: unknown; content?: unknown } }
      // The user's own prompt ends the turn: an older reply is not this turn's (and was logged already).
      if (type === "user" && message?.role === "user" && textOf(message.content).trim() !== "") return null
      if (type !== "assistant" || message?.role !== "assistant") continue
      const text = textOf(message.content).trim()
      if (text !== "") return text
    }
    return null
  } catch {
    return null
  } finally {
    fs.closeSync(fd)
  }
}
