// Plain TypeScript: the hook client checks a payload too (before handing session-end to another process),
// without loading Effect.

export const PAYLOAD_ERROR = "stdin is not a JSON object (expected Claude Code's hook payload)"

/** Stdin as a JSON object; null when it is empty (nothing to do), "invalid" when it is not a JSON object. */
export const payloadObject = (text: string): Record<string, unknown> | null | "invalid" => {
  if (text.trim() === "") return null
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : "invalid"
  } catch {
    return "invalid"
  }
}
