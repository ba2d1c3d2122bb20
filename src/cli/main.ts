import { runCli } from "./run.ts";

// The admin CLI's bin: `npm run cli -- <command> [arguments]`.
const code = await runCli(process.argv.slice(2), process.env, {
  out: (text) => console.log(text),
  err: (text) => console.error(text),
  write: (chunk) => new Promise((resolve, reject) => process.stdout.write(chunk, (error) => (error ? reject(error) : resolve()))),
});
process.exit(code);
