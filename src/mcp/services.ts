import type { AwhmConfigShape } from "../domain/Config.js"
import { MainLive } from "../layers/Main.js"

/** Every live service the MCP tools use: stores, embedder, retriever, Stage 2 client, configuration. */
export const mcpServicesLayer = (config: AwhmConfigShape) => MainLive(config)
