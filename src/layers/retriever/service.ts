import { Effect, Option } from "effect"
import { type CorruptFile, errorCode, type StorageError } from "../../domain/errors.js"
import type { MemoryNode, Strength } from "../../domain/Node.js"
import { noteUnsaved } from "../../runtime/unsavedNotice.js"
import type { RetrievalResult } from "../../domain/Result.js"
import { strengthParams } from "../../domain/strength.js"
import { nowIso, parseTimestamp } from "../../domain/time.js"
import { AppConfig } from "../../services/AppConfig.js"
import { Embedder } from "../../services/Embedder.js"
import { GraphStore } from "../../services/GraphStore.js"
import { RawLog } from "../../services/RawLog.js"
import type { RetrieveOptions, RetrieverShape } from "../../services/Retriever.js"
import { SessionBuffer, type BufferHit } from "../../services/SessionBuffer.js"
import { currentEntries } from "../../search/bufferSearch.js"
import { deletionStamp } from "../../store/deletionNotices.js"
import { dataPaths } from "../../store/paths.js"
import { isSummaryRequest, summarySubject } from "../../text/summaryRequest.js"
import { DEFAULT_GRAPH_TUNING, DEFAULT_RAW_TUNING, RankMemo, rankQuery, type GraphTuning, type RankSettings, type RawTuning } from "./engine.js"
import { fetchGraphCandidates, rankWithStatements } from "./graphCandidates.js"
import { refKey } from "./rank.js"
import { RawLogView, type SessionMark } from "./RawLogView.js"
import { loadPersisted, loadPersistedVectors, noteListed, savePersisted, worthSaving, type PersistTarget } from "./persist.js"

// Embedding the raw log happens once per message; more than this at once is worth a line on stderr.
const EMBED_NOTICE_AT = 500

/** How often an idle process checks whether a delete happened (ms): one stat(). */
const DELETION_CHECK_MS = 1000

/** Sessions read again since the saved view past which a listing saves the view instead of noting them beside it. */
const BEHIND_AT_MOST = 256

/** A warm process lists every session's log at least this often (ms), journal or not. */
export const FULL_LISTING_MS = 5 * 60_000

/** Whether the raw log is searched: cold_start_session_count null = always, 0 = never, n = while sessions < n. */
export const rawLogActive = (coldStartSessionCount: number | null, sessions: number): boolean =>
  coldStartSessionCount === null || sessions < coldStartSessionCount

export interface RetrieverOptions {
  /** Keep the indexes under `<data-dir>/index/` between processes (default: when the graph store is a file). */
  readonly persist?: boolean
  /** Where warnings go (default stderr). */
  readonly warn?: (line: string) => void
  /** Raw-log scoring other than the measured defaults (for benchmarks and ablations). */
  readonly rawTuning?: Partial<RawTuning>
  /** Graph ranking other than the measured defaults (ablations: the reference's blend). */
  readonly graphTuning?: Partial<GraphTuning>
  /** Newer wins among one query's candidates (default true; false for ablations). */
  readonly newerWins?: boolean
  /**
   * Indexes kept from an earlier retriever over the same stores and configuration (the hook server
   * builds a retriever per request around one long-lived state). Default: a fresh state.
   */
  readonly state?: RetrieverState
}

/**
 * What a retriever has indexed so far: the raw-log view and whether it adopted the saved copy (the graph
 * answers its own queries). Valid only for one data dir, configuration and embedder.
 */
export class RetrieverState {
  rawView: RawLogView
  persistLoaded = false
  restored = false
  vectorsLoaded = false
  embedderBroken = false
  /** The deletion stamp the views were built under (null: not yet used). */
  deletionStamp: number | null = null
  /**
   * A long-lived server sets this: a query that makes the saved copy worth rewriting leaves that to
   * saveDeferred, which the server calls once its answer is out (a rewrite at 100k costs ~0.4 s).
   */
  deferSaves = false
  private deferred: { readonly target: PersistTarget; readonly vectorsChanged: boolean } | null = null
  /**
   * A long-lived server sets this too: a listing of every session's log that falls due during a query (five
   * minutes on, or the logs folder changed while the journal ran on) is left to listDeferred, which the
   * server runs once its answer is out (5,000 logs at 100k: ~50 ms); the query reads the sessions the journal
   * names, and the journal's mark stays where the listing will start from.
   */
  deferListing = false
  private listing: Effect.Effect<void> | null = null

  constructor(
    _modelId: string | null,
    private readonly bm25: { readonly k1: number; readonly b: number }
  ) {
    this.rawView = new RawLogView(bm25)
  }

  /**
   * Follows the data dir's deletion stamp: after a delete (begun or ended) elsewhere, everything indexed so
   * far may hold deleted text, so the views start over from the stores and the (purged) saved copies.
   */
  followDeletions(stamp: number): boolean {
    const changed = this.deletionStamp !== null && this.deletionStamp !== stamp
    if (changed) {
      // The saved copy it read from may hold the deleted text: its file is given back at once.
      this.rawView.close()
      this.rawView = new RawLogView(this.bm25)
      this.persistLoaded = this.restored = this.vectorsLoaded = false
    }
    this.deletionStamp = stamp
    return changed
  }

  /** Saves now, or (deferSaves) when saveDeferred is called; new vectors of every deferred query are kept. */
  save(target: PersistTarget, vectorsChanged: boolean, warn: (line: string) => void): void {
    if (!this.deferSaves) return saveView(target, this.rawView, vectorsChanged, warn)
    this.deferred = { target, vectorsChanged: vectorsChanged || this.deferred?.vectorsChanged === true }
  }

  /** Leaves a due listing to listDeferred (the last query's replaces an earlier one's). */
  leaveListing(listing: Effect.Effect<void>): void {
    this.listing = listing
  }

  /** The listing a query left for later, if any (then a save it makes worth doing is left to saveDeferred). */
  listDeferred(): Effect.Effect<void> {
    const l = this.listing
    this.listing = null
    return l ?? Effect.void
  }

  /** The save a query left for later, if any (its deletion stamp still decides whether it may be written). */
  saveDeferred(warn: (line: string) => void): void {
    const d = this.deferred
    this.deferred = null
    if (d !== null) saveView(d.target, this.rawView, d.vectorsChanged, warn)
  }
}

const saveView = (target: PersistTarget, view: RawLogView, vectorsChanged: boolean, warn: (line: string) => void): void => {
  const failure = savePersisted(target, view, vectorsChanged)
  if (failure !== null && !noteUnsaved("the retrieval index", failure)) {
    warn(`awhm: could not save the retrieval index (${errorCode(failure) ?? "write failed"}); it is rebuilt next time`)
  }
}

/**
 * The retriever over the live services: it keeps graph and raw-log views in step with the stores
 * (incrementally), embeds the query (and, once each, raw-log messages) unless lexical-only, ranks, and
 * reinforces only the graph memories it returns.
 */
export const makeRetriever = (options: RetrieverOptions = {}) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const rawLog = yield* RawLog
    const buffer = yield* SessionBuffer
    const store = yield* GraphStore
    const embedder = yield* Embedder
    const warn = options.warn ?? ((line: string) => process.stderr.write(line + "\n"))
    const bm25 = { k1: config.bm25K1, b: config.bm25B }
    const state = options.state ?? new RetrieverState(embedder.enabled ? embedder.modelId : null, bm25)
    const persist = options.persist ?? store.location !== null
    const paths = dataPaths(config.dataDir)
    const settings: RankSettings = {
      wSemantic: config.wSemantic,
      wLexical: config.wLexical,
      wStrength: config.wStrength,
      wConfidence: config.wConfidence,
      wAssociation: config.wAssociation,
      contradictionPenalty: config.contradictionPenalty,
      bm25AnchorRatio: config.bm25AnchorRatio,
      embedThreshold: config.embedThreshold,
      neighborExpansion: config.neighborExpansion,
      neighborDecay: config.neighborDecay,
      rawLogScoreScale: config.rawLogScoreScale,
      strength: strengthParams(config),
      raw: { ...DEFAULT_RAW_TUNING, ...options.rawTuning },
      graph: { ...DEFAULT_GRAPH_TUNING, ...options.graphTuning },
      newerWins: options.newerWins !== false
    }

    const embedOrWarn = (texts: ReadonlyArray<string>) =>
      embedder.embed(texts).pipe(
        Effect.map(Option.some),
        Effect.catchAll((e) =>
          Effect.sync(() => {
            if (!state.embedderBroken) warn(`awhm: ${e.message}; continuing lexical-only`)
            state.embedderBroken = true
            return Option.none<ReadonlyArray<Float32Array>>()
          })
        )
      )

    // Every process follows the raw log's change journal (a whole one from where the saved view stood) and
    // re-reads only the sessions it names, and those a note beside the saved view says it is behind on; every
    // session is listed again when the journal cannot say, and at least every FULL_LISTING_MS (a log another
    // program appended to in place is seen then). A full listing notes beside the saved view where the
    // journal stood and the sessions read since the view was saved (noteListed), so the view is not rewritten
    // for a copied data dir, a new journal or a log that grew (only many such sessions or a removal are saved).
    // With state.deferListing (a server), a listing that falls due while the journal still names what changed
    // is left until the answer is out (mayDefer false: this is that listing).
    const syncRawLog = (persistTarget: PersistTarget | null, mayDefer: boolean): Effect.Effect<boolean, StorageError | CorruptFile> => Effect.gen(function* () {
      if (!state.persistLoaded && persistTarget !== null) {
        state.persistLoaded = true
        state.restored = loadPersisted(persistTarget, state.rawView)
        if (state.restored) state.rawView.journal = state.rawView.savedJournal
      }
      const rawView = state.rawView
      const changes = yield* rawLog.changesSince(rawView.journal.mark)
      const now = Date.now()
      const sinceListed = now - rawView.journal.listedAt
      const due = changes.sessions === null || !(sinceListed >= 0 && sinceListed <= FULL_LISTING_MS)
      const journalNames = changes.sessions ?? changes.named ?? null
      const deferred = due && mayDefer && state.deferListing && journalNames !== null
      const full = due && !deferred
      if (deferred) state.leaveListing(listLater(persistTarget))
      const named = full ? null : [...new Set([...(journalNames ?? []), ...rawView.behind])]
      rawView.behind = []
      const sessions = named === null
        ? yield* rawLog.sessions
        : (yield* Effect.forEach(named, rawLog.session)).filter((s) => s !== null)
      const count = full ? sessions.length : rawView.sessions.size + sessions.filter((s) => !rawView.sessions.has(s.sessionId)).length
      if (!rawLogActive(config.coldStartSessionCount, count)) {
        rawView.journal = { mark: null, listedAt: 0 } // not followed while off: list every session when it is on again
        return false
      }
      const present = new Set<string>()
      for (const s of sessions) {
        present.add(s.sessionId)
        if (!rawView.isStale(s.sessionId, s.mtimeMs)) continue
        yield* readSession(rawView, s.sessionId, { mtimeMs: s.mtimeMs, readAt: Date.now() })
      }
      for (const sid of named ?? [...rawView.sessions.keys()]) {
        if (present.has(sid) || !rawView.sessions.has(sid)) continue
        rawView.dropSession(sid)
      }
      // A deferred listing follows the journal from where this query started, as this query would have.
      if (!deferred) rawView.journal = { mark: changes.mark, listedAt: full ? now : rawView.journal.listedAt }
      if (full && persistTarget !== null) noteBeside(persistTarget, rawView.savedEmbeddedFor)
      return true
    })

    /**
     * Says beside the saved view what this process found since it was restored (where the journal stands, the
     * sessions read again, those found unchanged at other times, `embeddedFor`), in place of rewriting it.
     * False when that would not do: the view to be saved anyway, a removal, or past a few hundred sessions to
     * read again in every process (which marks the view to be saved instead).
     */
    const noteBeside = (persistTarget: PersistTarget, embeddedFor: string | null): boolean => {
      const rawView = state.rawView
      const { mark, listedAt } = rawView.journal
      if (!state.restored || rawView.savedId === null || rawView.copyBehind || rawView.unsaved.removed) return false
      // Past a few hundred sessions to read again in every process, the view is saved instead.
      if (rawView.readSinceSaved.size > BEHIND_AT_MOST) {
        rawView.copyBehind = true
        return false
      }
      if (mark === null) return false
      noteListed(persistTarget, rawView.savedId, { listedAt, mark, behind: [...rawView.readSinceSaved], remarked: rawView.remarkedTriples(), embeddedFor })
      return true
    }

    // A session this view read before (in this process, or the saved copy did) costs only what was appended to
    // its log since: a warm server's prompt no longer re-reads its whole session, and a copied data dir, whose
    // logs all have new modification times, no longer re-reads and re-saves every log. The whole log when it
    // changed before where the view stood (readSince compares a digest of those bytes: another program may
    // have edited it anywhere).
    const readSession = (rawView: RawLogView, sessionId: string, mark: SessionMark) =>
      Effect.gen(function* () {
        if (rawLog.readSince === undefined) return rawView.syncSession(sessionId, yield* rawLog.read(sessionId), mark)
        const got = yield* rawLog.readSince(sessionId, rawView.positionOf(sessionId))
        const appended = got.whole ? null : rawView.appendToSession(sessionId, got.entries, mark)
        if (appended !== null) {
          rawView.positions.set(sessionId, got.at)
          return appended
        }
        const whole = got.whole ? got : yield* rawLog.readSince(sessionId, null)
        rawView.positions.set(sessionId, whole.at)
        return rawView.syncSession(sessionId, whole.entries, mark)
      })

    /** The listing a query left: every log, then the saved copy rewritten (deferred too) when that is worth it. */
    const listLater = (persistTarget: PersistTarget | null): Effect.Effect<void> =>
      Effect.gen(function* () {
        yield* syncRawLog(persistTarget, false)
        const rawView = state.rawView
        if (persistTarget !== null && (worthSaving(rawView.unsaved) || rawView.copyBehind)) state.save(persistTarget, false, warn)
      }).pipe(Effect.catchAll(() => Effect.void)) // the next query finds it due again

    const embedRawLog = (persistTarget: PersistTarget | null) => Effect.gen(function* () {
      const rawView = state.rawView
      if (!state.vectorsLoaded && state.restored && persistTarget !== null) loadPersistedVectors(persistTarget, rawView)
      state.vectorsLoaded = true
      const missing = rawView.missingVectors(embedder.modelId)
      // A saved copy (or a note beside it) that says every message has a vector spares the next process this check.
      if (missing.length === 0 && state.restored && rawView.savedEmbeddedFor !== embedder.modelId && persistTarget !== null) {
        if (noteBeside(persistTarget, embedder.modelId)) rawView.savedEmbeddedFor = embedder.modelId
        else rawView.copyBehind = true
      }
      if (missing.length === 0) return false
      if (missing.length >= EMBED_NOTICE_AT) warn(`awhm: indexing ${missing.length} logged messages for semantic search (once)`)
      const vectors = yield* embedOrWarn(missing.map((d) => d.content))
      if (Option.isNone(vectors)) return false
      rawView.addVectors(missing, vectors.value)
      return true
    })

    // Written in batches by the store (every few seconds and when it closes), so readers stay cheap.
    const reinforce = (returned: ReadonlyArray<{ readonly node: MemoryNode; readonly strength: Strength }>, now: string) =>
      returned.length === 0
        ? Effect.void
        : store.reinforce(
            returned.map(({ node, strength }) => ({ id: node.id, content: node.content, validTo: node.validTo, at: now, strength }))
          )

    // An idle process lets go of what a delete made stale (the saved index file it read from, which the delete
    // replaced, and the views built from it) within a second, not at its next query: a long-lived MCP server
    // may go hours without one. Never during a query, which follows deletions itself.
    let inFlight = 0
    const idleCheck = setInterval(() => {
      if (inFlight === 0 && state.deletionStamp !== null && state.followDeletions(deletionStamp(paths))) store.releaseFiles?.()
    }, DELETION_CHECK_MS)
    idleCheck.unref()
    yield* Effect.addFinalizer(() => Effect.sync(() => clearInterval(idleCheck)))

    const retrieve = (query: string, opts: RetrieveOptions = {}) =>
      Effect.suspend(() => {
        inFlight++
        return retrieveNow(query, opts).pipe(Effect.ensuring(Effect.sync(() => inFlight--)))
      })

    const retrieveNow = (asked: string, opts: RetrieveOptions) =>
      Effect.gen(function* () {
        // Read before any store: an index write of this query is dropped if a delete begins or ends meanwhile.
        const stamp = deletionStamp(paths)
        if (state.followDeletions(stamp)) store.releaseFiles?.()
        const { rawView } = state
        const persistTarget: PersistTarget | null = persist ? { dataDir: config.dataDir, modelId: embedder.modelId, stamp } : null
        const k = Math.max(1, Math.floor(opts.k ?? config.k))
        const asOf = opts.asOf === undefined || opts.asOf === null ? null : (parseTimestamp(opts.asOf) ?? opts.asOf)
        const includeHistory = opts.includeHistory ?? config.includeHistoryByDefault
        const trace = opts.trace ?? config.traceRetrieval
        const wantSemantic = opts.lexicalOnly !== true && embedder.enabled && !state.embedderBroken
        // A request for a summary is ranked on its subject (summaryRequest.ts): by meaning, and then by words too. Without
        // meaning its frame's words stay: they are what reaches the replies that treat the subject in other words
        // (BEAM 500K summarization, lexical-only: MRR 0.162 with the whole request, 0.152 with its subject alone).
        const summary = isSummaryRequest(asked)
        const subject = summarySubject(asked)
        let queryVector: Float32Array | null = null
        if (wantSemantic && asked.trim() !== "") {
          const v = yield* embedOrWarn([subject ?? asked])
          if (Option.isSome(v) && v.value[0] !== undefined) queryVector = v.value[0]
        }
        const query = subject !== null && queryVector !== null ? subject : asked
        const semantic = queryVector !== null
        const now = nowIso()
        const scope = opts.scope ?? null
        const exclude = new Set((opts.exclude ?? []).map((r) => refKey(r.sessionId, r.messageIndex)))
        const fetched = yield* fetchGraphCandidates(store, {
          query,
          queryVector,
          modelId: embedder.enabled ? embedder.modelId : null,
          k,
          filter: { asOf, includeHistory, now, scope },
          excluded: exclude.size,
          bm25,
          embedThreshold: config.embedThreshold,
          neighborExpansion: config.neighborExpansion
        })
        const rawOn = yield* syncRawLog(persistTarget, true)
        let vectorsChanged = false
        if (semantic && rawOn) vectorsChanged = yield* embedRawLog(persistTarget)
        const sessionId = opts.sessionId ?? null
        const hits: ReadonlyArray<BufferHit> =
          sessionId === null ? [] : yield* buffer.search(sessionId, query, { includeHistory, asOf })
        // Lines of this session whose buffer statement a correction superseded are history too.
        const staleRefs = new Set<string>()
        if (sessionId !== null && !includeHistory && rawOn) {
          const all = (yield* buffer.entries(sessionId)).filter((e) => asOf === null || e.timestamp <= asOf)
          const visible = new Set(currentEntries(all, config.correctionWindowMessages))
          for (const e of all) if (!visible.has(e)) staleRefs.add(refKey(e.session_id, e.source_msg))
        }
        // Ranking names the log lines whose statements it needs; those are fetched and it ranks again.
        const memo = new RankMemo()
        const outcome = yield* rankWithStatements(store, fetched, rawView, () =>
          rankQuery(
            { query, queryVector, k, includeHistory, asOf, scope, exclude, trace, now, summary },
            settings,
            { graph: fetched.candidates, raw: rawOn ? rawView : null, buffer: hits, staleRefs, memo }
          )
        )
        yield* reinforce(outcome.returnedNodes, now)
        if (persistTarget !== null && (worthSaving(rawView.unsaved) || rawView.copyBehind || vectorsChanged)) {
          state.save(persistTarget, vectorsChanged, warn)
        }
        return outcome.results satisfies ReadonlyArray<RetrievalResult>
      })

    return { retrieve } satisfies RetrieverShape
  })
