import { randomUUID } from "node:crypto"
import { McpServer } from "@effect/ai"
import { Cause, type Context, Effect, ExecutionStrategy, Exit, Fiber, Layer, Logger, Scope } from "effect"
import { errorLine } from "../domain/errors.js"
import type { AwhmConfigShape } from "../domain/Config.js"
import { markLongLived } from "../runtime/longLived.js"
import { stderrLogger } from "../runtime/stderrLogger.js"
import { memoryHandlersLayer, type McpServices } from "./handlers.js"
import { INSTRUCTIONS } from "./instructions.js"
import { layerProtocolStdio } from "./protocol.js"
import { outputSchemas, registerMemoryTools } from "./register.js"
import { renderers } from "./renderers.js"
import { mcpServicesLayer } from "./services.js"
import { McpToolError } from "./tools.js"

/** The MCP server's name, as clients list it. */
export const SERVER_NAME = "awhm"

/** One session per server process, as the reference: everything this client logs goes to it. */
export const newMcpSessionId = (): string => `mcp-${randomUUID()}`

/**
 * The live services, built once on first use (not at start: a client's initialize is answered before
 * the stores open). A failed build is reported to that call and tried again on the next.
 */
const lazyServices = (config: AwhmConfigShape) =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const lock = yield* Effect.makeSemaphore(1)
    let built: Context.Context<McpServices> | null = null
    return lock.withPermits(1)(
      Effect.suspend(() => {
        if (built !== null) return Effect.succeed(built)
        return Effect.flatMap(Scope.fork(scope, ExecutionStrategy.sequential), (child) =>
          Layer.buildWithScope(mcpServicesLayer(config), child).pipe(
            Effect.tap((context) => Effect.sync(() => (built = context))),
            Effect.tapErrorCause((cause) => Scope.close(child, Exit.failCause(cause))),
            Effect.mapError((e) => new McpToolError({ message: errorLine(e) }))
          )
        )
      })
    )
  })

/** The whole stdio MCP server for one data directory. Launch it with Layer.launch. */
export const McpServerLive = (config: AwhmConfigShape, version: string, sessionId = newMcpSessionId()) =>
  Layer.effectDiscard(registerMemoryTools(renderers)).pipe(
    Layer.provide(Layer.unwrapScoped(Effect.map(lazyServices(config), (services) => memoryHandlersLayer(sessionId, services)))),
    Layer.provide(
      McpServer.layer({ name: SERVER_NAME, version }).pipe(
        Layer.provide(layerProtocolStdio({ instructions: INSTRUCTIONS, outputSchemas: outputSchemas() })),
        // As McpServer.layerStdio: nothing may log to stdout.
        Layer.provideMerge(Logger.remove(Logger.defaultLogger)),
        Layer.provideMerge(Logger.remove(Logger.prettyLoggerDefault))
      )
    ),
    Layer.provide(stderrLogger("awhm-mcp"))
  )

/**
 * Serves MCP on stdin/stdout until the client closes stdin. Anything that would print to stdout
 * (console.log anywhere in the process) is sent to stderr instead, so it cannot corrupt the protocol.
 */
export const serveMcp = (config: AwhmConfigShape, version: string) =>
  Effect.suspend(() => {
    markLongLived()
    console.log = console.error
    console.info = console.error
    console.debug = console.error
    return Effect.gen(function* () {
      // The stdio protocol interrupts the server when the client closes stdin: that is a normal end.
      const exit = yield* Effect.fork(Layer.launch(McpServerLive(config, version))).pipe(Effect.flatMap(Fiber.await))
      if (Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause)) return yield* Effect.failCause(exit.cause)
    })
  })
