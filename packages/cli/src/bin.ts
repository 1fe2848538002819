/** The `pd` executable. */
import { main } from "./index.js";

const code = await main(process.argv.slice(2));
// A failed command may leave handles open (a half-started server): exit now. Success drains.
if (code !== 0) process.exit(code);
