import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import * as RpcServer from "@effect/rpc/RpcServer"
import type { FromClientEncoded, FromServerEncoded } from "@effect/rpc/RpcMessage"
import * as NodeSink from "@effect/platform-node/NodeSink"
import * as NodeStream from "@effect/platform-node/NodeStream"
import { Effect, Layer } from "effect"
import { wholeLines } from "./wholeLines.js"

// @effect/ai 0.37's McpServer speaks MCP 2025-06-18 and cannot express a few things its clients rely on:
// `tools/call` without `arguments` (optional in the spec) fails its payload schema and comes back as a
// leaked defect; its initialize result always announces `completions` and carries no `instructions`;
// its Tool has no `outputSchema`. This wraps the stdio protocol under it and fixes those messages on
// the way in and out; everything else passes untouched.

/** The protocol versions this server speaks, newest first (a tools-only server is 2025-11-25 as it is). */
export const PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"] as const

export interface McpHandshake {
  /** Told to the client at initialize: when the model should use the tools. */
  readonly instructions: string
  /** Each tool's outputSchema, by tool name. */
  readonly outputSchemas: Readonly<Record<string, Record<string, unknown>>>
}

type Answer = "initialize" | "tools/list" | "other"

/** The requests whose answers may need fixing (notifications have no answer, and no id of their own). */
const FIXED = new Set(["initialize", "tools/list", "tools/call"])

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** The version to answer: the client's when this server speaks it, else the newest. */
export const negotiateVersion = (requested: unknown): string =>
  typeof requested === "string" && (PROTOCOL_VERSIONS as ReadonlyArray<string>).includes(requested) ? requested : PROTOCOL_VERSIONS[0]

/** A request as McpServer should see it: a `tools/call` without arguments has empty ones. */
export const patchRequest = (message: FromClientEncoded): FromClientEncoded => {
  if (message._tag !== "Request" || message.tag !== "tools/call" || !isObject(message.payload)) return message
  if (message.payload.arguments !== undefined && message.payload.arguments !== null) return message
  return { ...message, payload: { ...message.payload, arguments: {} } }
}

/** The value of a successful initialize or tools/list answer, as the client should see it. */
export const patchResult = (method: Answer, value: unknown, requestedVersion: unknown, handshake: McpHandshake): unknown => {
  if (!isObject(value)) return value
  if (method === "initialize") {
    const { completions: _none, ...capabilities } = isObject(value.capabilities) ? value.capabilities : {}
    return { ...value, protocolVersion: negotiateVersion(requestedVersion), capabilities, instructions: handshake.instructions }
  }
  if (method === "tools/list" && Array.isArray(value.tools)) {
    return {
      ...value,
      tools: value.tools.map((tool: unknown) => {
        const schema = isObject(tool) && typeof tool.name === "string" ? handshake.outputSchemas[tool.name] : undefined
        return schema === undefined ? tool : { ...(tool as object), outputSchema: schema }
      })
    }
  }
  return value
}

/**
 * A request whose params do not fit the method reaches McpServer's handler as a defect (its schema's
 * parse tree). The client gets JSON-RPC's invalid-params error instead, in one line.
 */
const invalidParams = (method: string) => ({
  _tag: "Fail" as const,
  error: { _tag: "InvalidParams", code: -32602, message: `Invalid params for ${method}` }
})

/**
 * The JSON-RPC decoder holds a request of up to this many bytes (its default, 16 MB, drops a bigger one
 * unanswered): an over-long memory_log reaches the tool, which refuses it in one line (max_message_chars).
 */
const MAX_REQUEST_BYTES = 64 * 1024 * 1024

/** The stdio protocol with the handshake fixes above, for McpServer.layer; stdin is read in whole lines. */
export const layerProtocolStdio = (handshake: McpHandshake) =>
  Layer.effect(
    RpcServer.Protocol,
    Effect.gen(function* () {
      const protocol = yield* RpcServer.Protocol
      // Request id → what the answer needs to be fixed for; cleared when it is answered.
      const pending = new Map<string, { readonly method: string; readonly version: unknown }>()
      // The JSON-RPC decoder reads request id 0 as "", and the answer carries "0".
      const key = (clientId: number, id: string) => `${clientId}:${id === "" ? "0" : id}`
      return RpcServer.Protocol.of({
        ...protocol,
        run: (f) =>
          protocol.run((clientId, message) => {
            if (message._tag === "Request" && FIXED.has(message.tag)) {
              const version = message.tag === "initialize" && isObject(message.payload) ? message.payload.protocolVersion : undefined
              pending.set(key(clientId, message.id), { method: message.tag, version })
            }
            return f(clientId, patchRequest(message))
          }),
        send: (clientId, response: FromServerEncoded, transferables) => {
          if (response._tag !== "Exit") return protocol.send(clientId, response, transferables)
          const request = pending.get(key(clientId, response.requestId))
          pending.delete(key(clientId, response.requestId))
          if (request === undefined) return protocol.send(clientId, response, transferables)
          const exit = response.exit
          const method: Answer = request.method === "initialize" || request.method === "tools/list" ? request.method : "other"
          const fixed: FromServerEncoded =
            exit._tag === "Success"
              ? { ...response, exit: { ...exit, value: patchResult(method, exit.value, request.version, handshake) } }
              : exit.cause._tag === "Die"
                ? { ...response, exit: { _tag: "Failure", cause: invalidParams(request.method) } }
                : response
          return protocol.send(clientId, fixed, transferables)
        }
      })
    })
  ).pipe(
    Layer.provide(RpcServer.layerProtocolStdio({ stdin: wholeLines(NodeStream.stdin), stdout: NodeSink.stdout })),
    Layer.provide(RpcSerialization.layerNdJsonRpc({ maxBufferSize: MAX_REQUEST_BYTES }))
  )
