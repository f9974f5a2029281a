// @vitest-environment jsdom
// The frame: the first language, and each step opening at its top.
import { describe, it, expect, afterEach } from "vitest";
import { render, fireEvent, waitFor } from "@testing-library/svelte";
import App from "./App.svelte";
import { fakeBackend } from "./test/fake";

function languages(list: string[]) {
  Object.defineProperty(navigator, "languages", { value: list, configurable: true });
}

describe("the app", () => {
  afterEach(() => languages(["en-US", "en"]));

  it("starts in Chinese on a system that is neither Chinese nor English", async () => {
    languages(["de-DE", "fr-FR"]);
    render(App, { api: fakeBackend().api });
    await waitFor(() => expect(document.getElementById("title")?.textContent).toBe("租卡规划 gpuplan"));
    expect(document.documentElement.lang).toBe("zh-CN");
  });

  it("starts in English when English comes first, and a remembered choice wins", async () => {
    languages(["en-GB", "zh-CN"]);
    const b = fakeBackend();
    render(App, { api: b.api });
    await waitFor(() => expect(document.getElementById("step-job")?.textContent).toBe("2. The job"));
    const remembered = fakeBackend();
    remembered.invoke.mockImplementationOnce(async () => "zh");
    document.body.innerHTML = "";
    render(App, { api: remembered.api });
    await waitFor(() => expect(document.getElementById("step-job")?.textContent).toMatch(/^2\. /));
    expect(document.getElementById("step-job")?.textContent).not.toBe("2. The job");
  });

  it("opens each step at its top", async () => {
    render(App, { api: fakeBackend().api });
    await waitFor(() => expect(document.getElementById("next")).not.toBeNull());
    const main = document.querySelector("main")!;
    const scrolled: number[] = [];
    main.scrollTo = ((_x: number, y: number) => void scrolled.push(y)) as unknown as typeof main.scrollTo;
    main.scrollTop = 500;
    await fireEvent.click(document.getElementById("next")!);
    await waitFor(() => expect(scrolled).toContain(0));
  });

  it("keeps the window open while a chosen plan not saved is asked about", async () => {
    const b = fakeBackend();
    render(App, { api: b.api });
    await waitFor(() => expect(b.closeListened(), "App listens for the close").toBe(true));
    expect(await b.close(), "nothing to lose: the window closes").toBe(true);
  });
});
