import { randomUUID } from "node:crypto"
import { Effect, Either } from "effect"
import type { Candidate } from "../domain/Candidate.js"
import type { RawLogEntry } from "../domain/Message.js"
import { statementKey } from "../text/canonical.js"
import { extractCandidates } from "../text/extraction.js"
import { addKnownName, type KnownNames, knownNames } from "../text/ner.js"
import type { Progress, SessionProgress } from "../domain/Progress.js"
import { settledMark } from "../store/consolidatedLogs.js"
import { strengthParams } from "../domain/strength.js"
import { nowIso } from "../domain/time.js"
import { AppConfig } from "../services/AppConfig.js"
import { Embedder } from "../services/Embedder.js"
import { GraphStore } from "../services/GraphStore.js"
import { RawLog } from "../services/RawLog.js"
import { planCommit, type PreparedCandidate } from "./consolidate/commit.js"
import { graphPart } from "./consolidate/graphPart.js"
import { progressStore } from "./progressStore.js"
import { sessionsToCheck } from "./consolidate/sessionsToCheck.js"
import { runStage2 } from "./stage2.js"

// Stage 1 consolidation over the services: new raw-log messages become graph nodes. Slow work (NER,
// Stage 2, embeddings) happens before any lock; the write locks cover only the compare-and-commit, and
// the progress index moves only after the graph commit succeeded. Sessions are taken in groups so the
// embedder sees large batches: one group is one graph commit and one progress write.

/** A group closes once it holds this many candidates: the embedder's batch, and a bound on memory. */
const GROUP_CANDIDATES = 256

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
  /** Called as sessions are committed (for a progress line). */
  readonly onSession?: (done: number, total: number, sessionId: string, created: number) => void
}

/** One session's pending work. */
interface Job {
  readonly sessionId: string
  readonly entries: ReadonlyArray<RawLogEntry>
  /** Index of the last pending message: the session's progress once committed. */
  readonly upTo: number
  readonly candidates: ReadonlyArray<Candidate>
}

const lastIndexOf = (entries: ReadonlyArray<RawLogEntry>): number =>
  entries.reduce((max, e) => (e.index > max ? e.index : max), -1)

/** Where a session stands: its last consolidated index, clamped to its log (a v1 "done" entry means all of it). */
const consolidatedUpTo = (p: SessionProgress | undefined, entries: ReadonlyArray<RawLogEntry>): number => {
  const last = lastIndexOf(entries)
  if (p === undefined) return -1
  return p.lastMsgIndex === null ? last : Math.min(p.lastMsgIndex, last)
}

/** Embeds every candidate of a group in one batch; null (after one warning per run) when off or failing. */
const embedAll = (candidates: ReadonlyArray<Candidate>, state: { embedderFailed: boolean }) =>
  Effect.gen(function* () {
    const embedder = yield* Embedder
    if (!embedder.enabled || state.embedderFailed || candidates.length === 0) return null
    const vectors = yield* Effect.either(embedder.embed(candidates.map((c) => c.content)))
    if (Either.isLeft(vectors)) {
      state.embedderFailed = true
      yield* Effect.logWarning(
        `the embedder failed (${vectors.left.message}); consolidating without embedding dedup or entity linking`
      )
      return null
    }
    return { vectors: vectors.right, modelId: embedder.modelId }
  })

/** Entity names already in the graph, so NER spots them even where compromise alone would not. */
const loadKnownNames = Effect.map(Effect.flatMap(GraphStore, (store) => store.entityForms), knownNames)

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

/** Reads a session's pending messages and extracts its candidates (Stage 2 included when enabled). */
const prepareJob = <E, R>(sessionId: string, progress: Progress, knownNow: Effect.Effect<KnownNames | null, E, R>) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const entries = yield* (yield* RawLog).read(sessionId)
    const from = consolidatedUpTo(progress.get(sessionId), entries)
    const pending = entries.filter((e) => e.index > from)
    if (pending.length === 0) return null
    const known = yield* knownNow
    let candidates: Array<Candidate> = extractCandidates(pending, {
      nerLabels: new Set(config.nerLabels),
      ...(known !== null ? { known } : {})
    })
    // Names found here are known to the sessions after it in this run.
    if (known !== null) for (const c of candidates) if (c.entityType !== null) addKnownName(known, c.content.slice(c.entityType.length + 2), c.entityType)
    if (config.stage2Enabled) {
      const keys = new Set(candidates.filter((c) => c.entityType === null).map((c) => statementKey(c.content)))
      candidates = [...candidates, ...(yield* runStage2(pending, keys))]
    }
    return { sessionId, entries, upTo: lastIndexOf(pending), candidates } satisfies Job
  })

/**
 * Commits a group of jobs: under the progress lock, re-reads progress (another process may have done
 * part of the work meanwhile), plans against the graph under the store's write lock, then records
 * progress. Returns the new nodes per session.
 */
const commitGroup = (jobs: ReadonlyArray<Job>, state: { embedderFailed: boolean }) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const store = yield* GraphStore
    const all = jobs.flatMap((j) => j.candidates)
    const embedded = yield* embedAll(all, state)
    const vectorOf = new Map<Candidate, Float32Array>()
    if (embedded !== null) all.forEach((c, i) => vectorOf.set(c, embedded.vectors[i]!))

    const locked = (progress: Progress) => Effect.gen(function* () {
      const now = nowIso()
      const prepared: Array<PreparedCandidate> = []
      const live: Array<Job> = []
      for (const job of jobs) {
        const done = consolidatedUpTo(progress.get(job.sessionId), job.entries)
        if (done >= job.upTo) continue
        live.push(job)
        const scopes = new Map(job.entries.map((e) => [e.index, typeof e.metadata.scope === "string" ? e.metadata.scope : null]))
        for (const candidate of job.candidates) {
          if (candidate.messageIndex <= done) continue
          prepared.push({ candidate, vector: vectorOf.get(candidate) ?? null, scope: scopes.get(candidate.messageIndex) ?? null })
        }
      }
      const created = new Map<string, number>(jobs.map((j) => [j.sessionId, 0]))
      if (live.length === 0) return [created, null] as const
      const settings = {
        dedupThreshold: config.dedupThreshold,
        entityLinkThreshold: config.entityLinkThreshold,
        correctionWindow: config.correctionWindowMessages,
        modelId: embedded?.modelId ?? null,
        now,
        newId: randomUUID,
        strength: strengthParams(config)
      }
      // Under the store's write lock, the plan reads only the part of the graph the batch may touch.
      const outcome = yield* store.updatePart((reader) =>
        Effect.map(graphPart(reader, prepared, settings), ({ graph, accessCounts }) => {
          const plan = planCommit(graph, prepared, settings, accessCounts)
          return [plan, plan.changes] as const
        })
      )
      for (const n of outcome.created) {
        const sid = n.sourceSessions[0]!
        created.set(sid, (created.get(sid) ?? 0) + 1)
      }
      const next = new Map(yield* resolveMigrated(progress, now))
      for (const job of live) next.set(job.sessionId, { lastMsgIndex: job.upTo, updatedAt: now })
      return [created, next] as const
    })
    return yield* (yield* progressStore).withLock(locked)
  })

/**
 * Consolidates every session with pending messages (oldest log first), or just `options.sessionId`.
 * Sessions are committed in groups, each atomically (graph and progress together): a failure leaves
 * the failing group's graph changes and progress unwritten, and groups already committed stay committed.
 */
export const consolidatePending = Effect.fn("consolidatePending")(function* (options: ConsolidateOptions = {}) {
  const config = yield* AppConfig
  const progressRecord = yield* progressStore
  // One named session is read as it is; a full run skips the logs unchanged since they were consolidated.
  const progress = yield* progressRecord.read
  const hint = options.sessionId === undefined ? yield* progressRecord.settled : null
  const full = hint === null ? null : yield* sessionsToCheck(progress, hint)
  const listed: ReadonlyArray<{ readonly sessionId: string; readonly stamp: string | null }> =
    full === null ? [{ sessionId: options.sessionId!, stamp: null }] : full.sessions
  const ids = listed.map((s) => s.sessionId)
  const marks = hint?.logs ?? new Map<string, string>()
  // Sessions found fully consolidated, with the log stamp and progress index to record for the next run.
  const settled = new Map<string, { readonly stamp: string; readonly index: number }>()
  // Loaded on first need (a run with nothing pending never reads the graph), then kept for the run.
  let known: KnownNames | null = null
  const knownNow = Effect.suspend(() =>
    known !== null || config.nerLabels.length === 0
      ? Effect.succeed(known)
      : Effect.map(loadKnownNames, (k) => (known = k))
  )
  const state = { embedderFailed: false }
  const sessions: Record<string, number> = {}
  let newNodes = 0
  let done = 0
  let group: Array<Job> = []
  let size = 0
  const flush = Effect.gen(function* () {
    if (group.length === 0) return
    const created = yield* commitGroup(group, state)
    for (const job of group) {
      const n = created.get(job.sessionId) ?? 0
      sessions[job.sessionId] = n
      newNodes += n
      options.onSession?.(++done, ids.length, job.sessionId, n)
    }
    group = []
    size = 0
  })
  for (const { sessionId, stamp } of listed) {
    const upTo = progress.get(sessionId)?.lastMsgIndex ?? null
    if (stamp !== null && upTo !== null && marks.get(sessionId) === settledMark(stamp, upTo)) continue
    const job = yield* prepareJob(sessionId, progress, knownNow)
    if (job === null) {
      if (stamp !== null && upTo !== null) settled.set(sessionId, { stamp, index: upTo })
      continue
    }
    if (stamp !== null) settled.set(sessionId, { stamp, index: job.upTo })
    group.push(job)
    size += job.candidates.length
    if (size >= GROUP_CANDIDATES) yield* flush
  }
  yield* flush
  if (full !== null) yield* progressRecord.recordSettled(settled, full.listing)
  return { newNodes, sessions } satisfies ConsolidationReport as ConsolidationReport
})

/** Consolidates one session's new messages; returns the number of nodes created (0 when nothing was pending). */
export const consolidateSession = Effect.fn("consolidateSession")(function* (sessionId: string) {
  return (yield* consolidatePending({ sessionId })).newNodes
})
