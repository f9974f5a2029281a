// English singulars: a core message's count arrives as text, and the UI
// picks `key_one` for 1 exactly as the Rust catalog does.
import { describe, expect, it } from "vitest";
import { duration, initI18n, messageText, i18next } from "./i18n";

describe("plurals", () => {
  it("says one stop, two stops, and leaves Chinese alone", async () => {
    const t = (k: string, o?: Record<string, unknown>) => i18next.t(k, o ?? {});
    const stopped = (count: string) => ({ key: "bill.line.stopped", params: { count, each_s: "3600", total_s: "3600" } });
    await initI18n("en");
    expect(messageText(stopped("1"), t), "one: the singular").toMatch(/^1 stop of /);
    expect(messageText(stopped("2"), t), "two: the plural").toMatch(/^2 stops of /);
    expect(messageText(stopped("0"), t), "none: the plural").toMatch(/^0 stops of /);
    await initI18n("zh");
    expect(messageText(stopped("1"), t), "Chinese has one form").toMatch(/^关机 1 次/);
  });
});

describe("durations of bill lines", () => {
  it("words them as the Rust side does, a fraction of a second included", () => {
    expect(duration("0.5", "en"), "half a second is not 0 s").toBe("0.5 s");
    expect(duration("0", "zh"), "nothing is 0").toBe("0 秒");
    expect(duration("30", "en"), "whole seconds").toBe("30 s");
    expect(duration("1800", "zh"), "minutes").toBe("30 分钟");
    expect(duration("5400", "en"), "hours to two places").toBe("1.50 h");
    expect(duration("3690", "en"), "1.025 h rounds up, as the JSON and the CLI say").toBe("1.03 h");
    expect(duration("9630", "zh"), "2.675 h rounds up").toBe("2.68 小时");
    expect(duration("615", "en"), "10.25 min rounds up").toBe("10.3 min");
    expect(duration("1797", "en"), "29.95 min is a whole 30").toBe("30 min");
  });
});
