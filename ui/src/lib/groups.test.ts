// The run groups the plan form writes: never an English word in a bill.
import { describe, it, expect } from "vitest";
import { applyForm, formOf, UNNAMED_GROUP } from "./flow";
import { plan0 } from "../test/fake";

describe("run groups", () => {
  const none = { ...plan0, run: [] };
  it("leave one run of a plan that lists none unlisted (Rust words the group)", () => {
    expect(applyForm(none, { ...formOf(none), runs: "1" }).run).toEqual([]);
  });
  it("name the group of several runs by the catalog key, not by a word", () => {
    expect(applyForm(none, { ...formOf(none), runs: "3" }).run).toEqual([{ name: UNNAMED_GROUP, hours: null, minutes: null, epochs: null, count: 3 }]);
  });
  it("keep a named group's name", () => {
    const named = { ...plan0, run: [{ name: "sweep", count: 2, hours: null, epochs: null }] };
    expect(applyForm(named, { ...formOf(named), runs: "4" }).run[0]).toMatchObject({ name: "sweep", count: 4 });
  });
});
