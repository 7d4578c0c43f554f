import { Effect } from "effect"
import type { MemoryNode } from "../domain/Node.js"
import { nowIso } from "../domain/time.js"
import { AppConfig } from "../services/AppConfig.js"
import { GraphStore } from "../services/GraphStore.js"
import { isOnlyAsking } from "../text/questions.js"
import { contextHookOutput, formatContext, PROFILE_HEADER } from "./context.js"
import { type HookPayload, payloadScope } from "./payload.js"

/**
 * Whether a node belongs in the profile: an active fact, preference or policy (not an event, an entity
 * name or a question), valid now, of this project or global.
 */
const inProfile = (node: MemoryNode, scope: string | null, now: string): boolean =>
  node.status === "active" &&
  (node.type === "semantic" || node.type === "procedural") &&
  node.entityType === null &&
  (node.validFrom === null || node.validFrom <= now) &&
  (node.validTo === null || node.validTo > now) &&
  (scope === null || node.scope === null || node.scope === scope) &&
  !isOnlyAsking(node.content)

/**
 * SessionStart (a new session, a resume, a /clear, a compaction): what is known for this project, newest
 * first, as Claude Code's SessionStart JSON within hook_context_chars; null when nothing is known.
 */
export const sessionStartHook = Effect.fn("hookSessionStart")(function* (payload: HookPayload) {
  const config = yield* AppConfig
  const scope = payloadScope(payload, config)
  const now = nowIso()
  const { nodes } = yield* (yield* GraphStore).load({ withEmbeddings: false })
  const profile = [...nodes.values()]
    .filter((n) => inProfile(n, scope, now))
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? -1 : 1))
  const context = formatContext(profile.map((n) => n.content), config.hookContextChars, PROFILE_HEADER)
  return context === null ? null : contextHookOutput("SessionStart", context)
})
