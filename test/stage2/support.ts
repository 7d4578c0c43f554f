import * as os from "node:os"
import * as path from "node:path"
import { Layer, Logger } from "effect"
import { RawLogEntry, type Role } from "../../src/domain/Message.js"
import { ConfigFromValues } from "../../src/layers/ConfigLive.js"

/** Defaults plus overrides (snake_case); the data dir does not exist, so no config.json is read. */
export const testConfig = (overrides: Readonly<Record<string, string>> = {}) =>
  ConfigFromValues(path.join(os.tmpdir(), "awhm-stage2-no-such-dir"), overrides)

/** User messages of session s1, indexes from `start`, one minute apart from 2026-03-01T10:00Z. */
export const entries = (texts: ReadonlyArray<string>, start = 0, sessionId = "s1", role: Role = "user") =>
  texts.map(
    (content, i) =>
      new RawLogEntry({
        timestamp: new Date(Date.UTC(2026, 2, 1, 10, start + i)).toISOString(),
        session_id: sessionId,
        role,
        content,
        metadata: {},
        index: start + i
      })
  )

/** A well-formed proposal (the reference test's default), with overrides. */
export const memory = (overrides: Record<string, unknown> = {}) => ({
  content: "The user's preferred editor is Neovim",
  type: "semantic",
  slot: "user preferred editor",
  valid_from: null,
  valid_to: null,
  confidence: 0.9,
  sources: [0],
  supersedes_previous: false,
  ...overrides
})

/** Captures log lines ("LEVEL message") instead of printing them. */
export const captureLogs = () => {
  const lines: Array<string> = []
  const layer = Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ logLevel, message }) => {
      lines.push(`${logLevel.label} ${(Array.isArray(message) ? message : [message]).map(String).join(" ")}`)
    })
  )
  return { lines, layer: layer as Layer.Layer<never> }
}
