import { runCli } from "../cli/main.js"

runCli(process.argv)
