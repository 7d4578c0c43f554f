import { randomUUID } from "node:crypto"
import { McpServer } from "@effect/ai"
import * as NodeSink from "@effect/platform-node/NodeSink"
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import * as RpcServer from "@effect/rpc/RpcServer"
import { Cause, Effect, Exit, Fiber, Layer, Logger, Stream } from "effect"
import type { AwhmConfigShape } from "../domain/Config.js"
import { stderrLogger } from "../runtime/stderrLogger.js"
import { memoryHandlersLayer } from "./handlers.js"
import { registerMemoryTools } from "./register.js"
import { renderers } from "./renderers.js"
import { mcpServicesLayer } from "./services.js"

/** The MCP server's name, as clients list it. */
export const SERVER_NAME = "awhm"

/** One session per server process, as the reference: everything this client logs goes to it. */
export const newMcpSessionId = (): string => `mcp-${randomUUID()}`

/** The JSON-RPC decoder holds a request of up to this many bytes (its default, 16 MB, drops bigger ones). */
const MAX_REQUEST_BYTES = 64 * 1024 * 1024

/**
 * Re-chunks bytes so that every chunk ends at a newline. The JSON-RPC decoder searches its whole buffer
 * for a newline on every chunk it gets: fed 64 KB pipe chunks, a 20 MB request took minutes; fed whole
 * lines, it takes one pass.
 */
export const wholeLines = <E, R>(bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<Uint8Array, E, R> =>
  Stream.suspend(() => {
    let pending: Array<Uint8Array> = []
    const lines = bytes.pipe(
      Stream.mapConcat((chunk): Array<Uint8Array> => {
        const nl = chunk.lastIndexOf(0x0a)
        if (nl === -1) {
          pending.push(chunk)
          return []
        }
        const out = Buffer.concat([...pending, chunk.subarray(0, nl + 1)])
        pending = nl + 1 < chunk.length ? [chunk.subarray(nl + 1)] : []
        return [out]
      })
    )
    return Stream.concat(lines, Stream.suspend(() => (pending.length === 0 ? Stream.empty : Stream.make(Buffer.concat(pending)))))
  })

/** McpServer.layerStdio, with stdin in whole lines and room for a request the tools then refuse in one line. */
const stdioServer = (version: string) =>
  McpServer.layer({ name: SERVER_NAME, version }).pipe(
    Layer.provide(RpcServer.layerProtocolStdio({ stdin: wholeLines(NodeStream.stdin), stdout: NodeSink.stdout })),
    Layer.provide(RpcSerialization.layerNdJsonRpc({ maxBufferSize: MAX_REQUEST_BYTES })),
    Layer.provideMerge(Logger.remove(Logger.defaultLogger)),
    Layer.provideMerge(Logger.remove(Logger.prettyLoggerDefault))
  )

/** The whole stdio MCP server for one data directory. Launch it with Layer.launch. */
export const McpServerLive = (config: AwhmConfigShape, version: string, sessionId = newMcpSessionId()) =>
  Layer.effectDiscard(registerMemoryTools(renderers)).pipe(
    Layer.provide(memoryHandlersLayer(sessionId)),
    Layer.provide(stdioServer(version)),
    Layer.provide(mcpServicesLayer(config)),
    Layer.provide(stderrLogger("awhm-mcp"))
  )

/**
 * Serves MCP on stdin/stdout until the client closes stdin. Anything that would print to stdout
 * (console.log anywhere in the process) is sent to stderr instead, so it cannot corrupt the protocol.
 */
export const serveMcp = (config: AwhmConfigShape, version: string) =>
  Effect.suspend(() => {
    console.log = console.error
    console.info = console.error
    console.debug = console.error
    return Effect.gen(function* () {
      // The stdio protocol interrupts the server when the client closes stdin: that is a normal end.
      const exit = yield* Effect.fork(Layer.launch(McpServerLive(config, version))).pipe(Effect.flatMap(Fiber.await))
      if (Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause)) return yield* Effect.failCause(exit.cause)
    })
  })
