import { defineConfig } from "vite";
import { svelte } from "@sveltejs/vite-plugin-svelte";

// Offline, strict-CSP build: no inline scripts or styles, no remote assets.
export default defineConfig({
  plugins: [svelte()],
  clearScreen: false,
  server: { port: 1420, strictPort: true },
  build: { target: "es2022", outDir: "dist", emptyOutDir: true, assetsInlineLimit: 0, cssCodeSplit: false },
  test: { environment: "node", include: ["src/**/*.test.ts"] },
});
