/**
 * The built library for a scenario, or the error that says the build is
 * missing (the scenario then reports itself as not measured).
 */
export async function loadBuild() {
  try {
    return await import('../../dist/core/index.js');
  } catch (error) {
    return { error };
  }
}
