import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import type { HookArgs } from "../hooks/argv.js"
import { dataDirOption } from "./common.js"
import { installCommandCli, uninstallCommandCli } from "./hookInstall.js"

// The bin runs `awhm hook <event>` through a fast path (src/hooks/main.ts) that skips this
// command tree; it is here for `--help` and for anyone calling the CLI programmatically.

const run = (args: HookArgs) =>
  Effect.promise(() => Promise.all([import("../hooks/run.js"), import("../hooks/io.js")])).pipe(
    Effect.flatMap(([{ runHook }, { processIO }]) => runHook(args, processIO()))
  )

const dataDir = (o: Option.Option<string>) => Option.getOrNull(o)

const k = Options.integer("k").pipe(
  Options.withDescription("How many memories to inject (default 5)"),
  Options.withDefault(5)
)
const semantic = Options.boolean("semantic").pipe(
  Options.withDescription("Also rank by embeddings (loads the model; slower). Default: lexical only")
)
const stage2 = Options.boolean("stage2").pipe(
  Options.withDescription("Also run Stage 2 (an LLM pass through `claude -p`); or set AWHM_STAGE2=1")
)
const command = Options.text("command").pipe(
  Options.withDescription("The command Claude Code should run (default: the awhm on PATH)"),
  Options.optional
)

const prompt = Command.make("prompt", { k, semantic, dataDir: dataDirOption }, (o) =>
  run({ event: "prompt", k: o.k, semantic: o.semantic, dataDir: dataDir(o.dataDir) })
).pipe(
  Command.withDescription(
    "UserPromptSubmit: log the prompt and print the most relevant memories as Claude Code's additionalContext"
  )
)

const sessionStart = Command.make("session-start", { dataDir: dataDirOption }, (o) =>
  run({ event: "session-start", dataDir: dataDir(o.dataDir) })
).pipe(
  Command.withDescription(
    "SessionStart (startup, resume, /clear, compaction): print this project's current facts, preferences and policies, newest first, as Claude Code's additionalContext"
  )
)

const stop = Command.make("stop", { dataDir: dataDirOption }, (o) =>
  run({ event: "stop", dataDir: dataDir(o.dataDir) })
).pipe(Command.withDescription("Stop: log the assistant's reply (once, even if Claude Code fires twice)"))

const wait = Options.boolean("wait").pipe(
  Options.withDescription("Consolidate before returning (by default a detached process does it and the hook returns at once)")
)

const sessionEnd = Command.make("session-end", { stage2, wait, dataDir: dataDirOption }, (o) =>
  run({ event: "session-end", stage2: o.stage2, wait: o.wait, dataDir: dataDir(o.dataDir) })
).pipe(
  Command.withDescription(
    "SessionEnd: consolidate the session into long-term memory, then clear its WAL; the outcome is a line of <data-dir>/meta/session_end.log"
  )
)

const settings = Command.make("settings", { command }, (o) =>
  run({ event: "settings", command: Option.getOrNull(o.command) })
).pipe(Command.withDescription("Print the hooks block to merge into ~/.claude/settings.json"))

const idleSeconds = Options.integer("idle-seconds").pipe(
  Options.withDescription("Exit after this many seconds without a hook (default 900)"),
  Options.withDefault(900)
)

const serve = Command.make("serve", { idleSeconds, dataDir: dataDirOption }, (o) =>
  run({ event: "serve", idleSeconds: o.idleSeconds, dataDir: dataDir(o.dataDir) })
).pipe(
  Command.withDescription(
    "Run the hook server: it keeps the graph and indexes in memory and answers prompt and stop over a Unix socket. The hooks start it themselves; AWHM_HOOK_SERVER=0 keeps them from it"
  )
)

const shutdown = Command.make("shutdown", { dataDir: dataDirOption }, (o) =>
  run({ event: "shutdown", dataDir: dataDir(o.dataDir) })
).pipe(Command.withDescription("Stop the data dir's hook server (the next prompt runs in-process and starts it again)"))

/** `awhm hook session-start|prompt|stop|session-end|settings`: Claude Code hooks (payload JSON on stdin; always exit 0). */
export const hookCommand = Command.make("hook").pipe(
  Command.withDescription(
    "Claude Code hooks: read the hook's JSON payload on stdin and answer as Claude Code expects. Always exit 0; problems go to stderr. AWHM_HOOK_ACTIVE=1 turns them off."
  ),
  Command.withSubcommands([sessionStart, prompt, stop, sessionEnd, settings, installCommandCli, uninstallCommandCli, serve, shutdown])
)
