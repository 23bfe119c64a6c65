// One vitest project per package (vitest 3.2 prints a deprecation notice for this file;
// the design card asks for it).
export default ["packages/*/vitest.config.ts"]
