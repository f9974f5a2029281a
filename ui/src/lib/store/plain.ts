/** Plain data out of a `$state` proxy (what crosses to Rust). */
export const plain = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
