// Numbers as people type them, and the first language.
import { describe, it, expect } from "vitest";
import { normalizeNumber, parseNumber, firstLanguage, type UnitKind } from "./numbers";
import { checkNumber } from "./flow";

describe("numbers as people type them", () => {
  it.each([
    ["１５０", [], "150", "full-width digits"],
    ["１５０．５", [], "150.5", "a full-width point"],
    ["1,000", [], "1000", "thousands separator"],
    ["1，000", [], "1000", "a full-width comma"],
    ["12,345,678.5", [], "12345678.5", "several groups"],
    ["150元", ["cny"], "150", "yuan after"],
    ["¥150", ["cny"], "150", "the yuan sign before"],
    ["￥ 1,200 元", ["cny"], "1200", "sign, group and unit"],
    ["6h", ["hours"], "6", "hours"],
    ["6 小时", ["hours"], "6", "hours in Chinese"],
    ["20GB", ["gb"], "20", "gigabytes"],
    ["3 天", ["days"], "3", "days"],
    ["2.5元/小时", ["cny-per-hour"], "2.5", "a price per hour"],
    ["  42\u3000", [], "42", "an ideographic space"],
  ] as [string, UnitKind[], string, string][])("normalizeNumber(%j)", (text, units, want, why) => {
    expect(normalizeNumber(text, units), why).toBe(want);
  });

  it("takes only the field's own unit, and no unit where none is given", () => {
    expect(normalizeNumber("150GB", ["cny"]), "gigabytes are not money").toBe("150GB");
    expect(checkNumber("150GB", undefined, "zh", false, ["cny"])?.key).toBe("form.notNumber");
    expect(checkNumber("150元", undefined, "zh"), "a field without units takes none").not.toBeNull();
    expect(checkNumber("150元", undefined, "zh", false, ["cny"])).toBeNull();
  });

  it("does not mistake a decimal comma for thousands", () => {
    expect(normalizeNumber("1,5"), "not three digits after the comma").toBe("1,5");
    expect(checkNumber("1,5", undefined, "en")?.key).toBe("form.notNumber");
  });

  it("checks the cleaned number against the range", () => {
    const limit = { field: "budget", min: 0, max: 1000, integer: false, min_exclusive: false };
    expect(checkNumber("1,000元", limit, "zh", false, ["cny"])).toBeNull();
    expect(checkNumber("1,001元", limit, "zh", false, ["cny"])?.key).toBe("form.range");
    expect(parseNumber("１，０００", ["cny"])).toBe(1000);
  });
});

describe("first language", () => {
  it.each([
    [null, ["zh-CN", "en-US"], "zh", "Chinese first"],
    [null, ["en-GB", "zh-CN"], "en", "English first"],
    [null, ["de-DE", "fr-FR"], "zh", "neither: Chinese"],
    [null, ["ja-JP", "en-US", "zh-TW"], "en", "the first of zh or en wins"],
    [null, ["zh_TW"], "zh", "underscore form"],
    [null, [], "zh", "nothing known: Chinese"],
    ["en", ["zh-CN"], "en", "a remembered choice wins"],
    ["zh", ["en-US"], "zh", "either way"],
    ["xx", ["en-US"], "en", "a bad saved value is ignored"],
  ] as [string | null, string[], string, string][])("firstLanguage(%j, %j)", (saved, preferred, want, why) => {
    expect(firstLanguage(saved, preferred), why).toBe(want);
  });
});
