import { Context } from "effect"
import type { AwhmConfigShape } from "../domain/Config.js"

/** The resolved configuration of this process (flags > env > config.json > defaults). */
export class AppConfig extends Context.Tag("awhm/AppConfig")<AppConfig, AwhmConfigShape>() {}
