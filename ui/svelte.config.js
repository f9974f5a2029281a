import { vitePreprocess } from "@sveltejs/vite-plugin-svelte";

export default {
  preprocess: vitePreprocess(),
  // Component CSS goes to the bundled stylesheet, never inline (strict CSP).
  compilerOptions: { css: "external" },
};
