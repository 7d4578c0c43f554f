import { randomUUID } from "node:crypto"
import * as path from "node:path"
import { Effect, Either } from "effect"
import type { Candidate } from "../domain/Candidate.js"
import type { RawLogEntry } from "../domain/Message.js"
import { statementKey } from "../lib/canonical.js"
import { EntityIndex } from "../lib/entities.js"
import { extractCandidates } from "../lib/extraction.js"
import { withFileLock } from "../lib/fileLock.js"
import { type KnownNames, knownNames } from "../lib/ner.js"
import { dataPaths } from "../lib/paths.js"
import { type Progress, readProgress, type SessionProgress, writeProgress } from "../lib/progress.js"
import { strengthParams } from "../lib/strength.js"
import { nowIso } from "../lib/time.js"
import { AppConfig } from "../services/AppConfig.js"
import { Embedder } from "../services/Embedder.js"
import { GraphStore } from "../services/GraphStore.js"
import { RawLog } from "../services/RawLog.js"
import { planCommit, type PreparedCandidate } from "./consolidate/commit.js"
import { runStage2 } from "./stage2.js"

// Stage 1 consolidation over the services: new raw-log messages of a session become graph nodes.
// Slow work (NER, Stage 2, embeddings) happens before any lock; the store's write lock covers only the
// compare-and-commit, and the progress index moves only after the graph commit succeeded.

/** Texts per embedder call: large enough to batch well, small enough to bound memory. */
const EMBED_BATCH = 256

/** What one consolidation run did. */
export interface ConsolidationReport {
  /** Nodes created (restatements and resolved entities are not counted). */
  readonly newNodes: number
  /** New nodes per session that had new messages. */
  readonly sessions: Readonly<Record<string, number>>
}

export interface ConsolidateOptions {
  /** Only this session (default: every session with pending messages, oldest log first). */
  readonly sessionId?: string
  /** Called after each session (for a progress line). */
  readonly onSession?: (done: number, total: number, sessionId: string, created: number) => void
}

/** State shared by the sessions of one run: the embedder warns once and is not retried after failing. */
interface RunState {
  embedderFailed: boolean
  known: { names: KnownNames; index: EntityIndex } | null
}

const progressLock = (dataDir: string) => path.join(dataPaths(dataDir).locks, "consolidation.lock")
// The lock file is taken synchronously: fibers of one process (the MCP server) queue here first.
const inProcess = Effect.unsafeMakeSemaphore(1)

const lastIndexOf = (entries: ReadonlyArray<RawLogEntry>): number =>
  entries.reduce((max, e) => (e.index > max ? e.index : max), -1)

/** Where a session stands: its last consolidated index, clamped to its log (a v1 "done" entry means all of it). */
const consolidatedUpTo = (p: SessionProgress | undefined, entries: ReadonlyArray<RawLogEntry>): number => {
  const last = lastIndexOf(entries)
  if (p === undefined) return -1
  return p.lastMsgIndex === null ? last : Math.min(p.lastMsgIndex, last)
}

/** Embeds the candidates' contents in batches; null (after one warning) when the embedder is off or fails. */
const embedAll = (candidates: ReadonlyArray<Candidate>, state: RunState) =>
  Effect.gen(function* () {
    const embedder = yield* Embedder
    if (!embedder.enabled || state.embedderFailed || candidates.length === 0) return null
    const texts = candidates.map((c) => c.content)
    const out: Array<Float32Array> = []
    for (let i = 0; i < texts.length; i += EMBED_BATCH) {
      const batch = yield* Effect.either(embedder.embed(texts.slice(i, i + EMBED_BATCH)))
      if (Either.isLeft(batch)) {
        state.embedderFailed = true
        yield* Effect.logWarning(
          `awhm: the embedder failed (${batch.left.message}); consolidating without embedding dedup or entity linking`
        )
        return null
      }
      out.push(...batch.right)
    }
    return { vectors: out, modelId: embedder.modelId }
  })

/** Entity names already in the graph, loaded once per run (NER spots them even where compromise does not). */
const knownEntities = (state: RunState) =>
  Effect.gen(function* () {
    if (state.known !== null) return state.known
    const store = yield* GraphStore
    const graph = yield* store.load({ withEmbeddings: false })
    const index = new EntityIndex(graph.nodes.values())
    state.known = { names: knownNames(index.forms()), index }
    return state.known
  })

/** Resolves v1 "whole session" entries against their logs, so the v2 file records real indices. */
const resolveMigrated = (progress: Progress, now: string) =>
  Effect.gen(function* () {
    const rawLog = yield* RawLog
    const out = new Map(progress)
    for (const [sid, p] of progress) {
      if (p.lastMsgIndex === null) out.set(sid, { lastMsgIndex: lastIndexOf(yield* rawLog.read(sid)), updatedAt: now })
    }
    return out
  })

const consolidateOne = Effect.fn("consolidateSession.one")(function* (sessionId: string, state: RunState) {
  const config = yield* AppConfig
  const rawLog = yield* RawLog
  const store = yield* GraphStore
  const paths = dataPaths(config.dataDir)

  const before = yield* readProgress(paths.progress, nowIso())
  const entries = yield* rawLog.read(sessionId)
  const from = consolidatedUpTo(before.get(sessionId), entries)
  const pending = entries.filter((e) => e.index > from)
  if (pending.length === 0) return null
  const upTo = lastIndexOf(pending)

  const known = config.nerLabels.length > 0 ? yield* knownEntities(state) : null
  let candidates: Array<Candidate> = extractCandidates(pending, {
    nerLabels: new Set(config.nerLabels),
    ...(known !== null ? { known: known.names } : {})
  })
  if (config.stage2Enabled) {
    const keys = new Set(candidates.filter((c) => c.entityType === null).map((c) => statementKey(c.content)))
    candidates = [...candidates, ...(yield* runStage2(pending, keys))]
  }
  const embedded = yield* embedAll(candidates, state)
  const scopes = new Map(pending.map((e) => [e.index, typeof e.metadata.scope === "string" ? e.metadata.scope : null]))

  const locked = withFileLock(
    progressLock(config.dataDir),
    Effect.gen(function* () {
      // Another process may have consolidated part of this session meanwhile: skip what it did.
      const now = nowIso()
      const progress = yield* readProgress(paths.progress, now)
      const done = consolidatedUpTo(progress.get(sessionId), entries)
      if (done >= upTo) return 0
      const prepared: Array<PreparedCandidate> = []
      candidates.forEach((candidate, i) => {
        if (candidate.messageIndex <= done) return
        prepared.push({ candidate, vector: embedded?.vectors[i] ?? null, scope: scopes.get(candidate.messageIndex) ?? null })
      })
      const outcome = yield* store.update((graph) =>
        Effect.sync(() => {
          const plan = planCommit(graph, prepared, {
            dedupThreshold: config.dedupThreshold,
            entityLinkThreshold: config.entityLinkThreshold,
            correctionWindow: config.correctionWindowMessages,
            modelId: embedded?.modelId ?? null,
            now,
            newId: randomUUID,
            strength: strengthParams(config)
          })
          return [plan, plan.changes] as const
        })
      )
      const next = new Map(yield* resolveMigrated(progress, now))
      next.set(sessionId, { lastMsgIndex: upTo, updatedAt: now })
      yield* writeProgress(paths.progress, next)
      if (state.known !== null) {
        for (const n of outcome.changes.upsertNodes ?? []) if (n.entityType !== null) state.known.index.add(n)
        state.known.names = knownNames(state.known.index.forms())
      }
      return outcome.created.length
    })
  )
  return yield* inProcess.withPermits(1)(locked)
})

/** Consolidates one session's new messages; returns the number of nodes created (0 when nothing was pending). */
export const consolidateSession = Effect.fn("consolidateSession")(function* (sessionId: string) {
  const created = yield* consolidateOne(sessionId, { embedderFailed: false, known: null })
  return created ?? 0
})

/**
 * Consolidates every session with pending messages (oldest log first), or just `options.sessionId`.
 * Each session is committed on its own: a failure leaves that session's graph changes and progress
 * unwritten, and sessions already committed stay committed.
 */
export const consolidatePending = Effect.fn("consolidatePending")(function* (options: ConsolidateOptions = {}) {
  const rawLog = yield* RawLog
  const ids =
    options.sessionId !== undefined ? [options.sessionId] : (yield* rawLog.sessions).map((s) => s.sessionId)
  const state: RunState = { embedderFailed: false, known: null }
  const sessions: Record<string, number> = {}
  let newNodes = 0
  let done = 0
  for (const sessionId of ids) {
    const created = yield* consolidateOne(sessionId, state)
    done++
    if (created === null) continue
    sessions[sessionId] = created
    newNodes += created
    options.onSession?.(done, ids.length, sessionId, created)
  }
  return { newNodes, sessions } satisfies ConsolidationReport as ConsolidationReport
})
