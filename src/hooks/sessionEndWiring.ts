import { Cause, Effect, Layer, Option } from "effect"
import type { AwhmConfigShape } from "../domain/Config.js"
import { errorLine } from "../domain/errors.js"
import { nowIso } from "../domain/time.js"
import { configLayer, embedderLayer, stage2Layer, storesLayer } from "../layers/Main.js"
import { appendNoFollow } from "../store/noFollow.js"
import { dataPaths } from "../store/paths.js"
import { ensurePrivateDir } from "../store/privateDir.js"
import { claudeSessionId, type HookPayload } from "./payload.js"
import { sessionEndHook } from "./sessionEnd.js"

// Kept apart from the per-prompt wiring: consolidation's code (NER, dates, Stage 2) loads only here.

/** One line of meta/session_end.log: the outcome of a session-end that nobody may be watching (it runs detached). */
const record = (config: AwhmConfigShape, line: string) =>
  Effect.sync(() => {
    try {
      const paths = dataPaths(config.dataDir)
      ensurePrivateDir(paths.meta)
      appendNoFollow(paths.sessionEndLog, line + "\n")
    } catch {
      // The outcome line is a courtesy; the consolidation itself is what matters.
    }
  })

/** "1 new memory", "2 new memories". */
export const memories = (n: number) => `${n} new memor${n === 1 ? "y" : "ies"}`

/** The session-end hook on live stores, the configured embedder and Stage 2 client; its outcome goes to meta/session_end.log. */
export const runSessionEnd = (config: AwhmConfigShape, payload: HookPayload) => {
  const head = () => `${nowIso()} ${claudeSessionId(payload)}`
  return sessionEndHook(payload).pipe(
    Effect.provide(Layer.mergeAll(storesLayer(config), embedderLayer(config), stage2Layer(config), configLayer(config))),
    Effect.tap((created) => record(config, `${head()} consolidated ${memories(created)}`)),
    Effect.tapErrorCause((cause) => {
      const failure = Cause.failureOption(cause)
      return record(config, `${head()} error: ${errorLine(Option.isSome(failure) ? failure.value : Cause.squash(cause))}`)
    })
  )
}
