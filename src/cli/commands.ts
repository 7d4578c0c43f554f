// Every subcommand of `awhm`, one file each; add new ones here.
export const subcommands = [] as const
