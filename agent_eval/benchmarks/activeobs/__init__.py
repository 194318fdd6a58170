"""Active observation (JRDB-AVR): questions about a 360° panoramic video the agent never sees whole; it asks for
views through the `observe` MCP tool, answers and points at its evidence (docs/kinds/activeobs.md).

benchmark.py          ActiveObservation: setup per tool mode (observe, world model, notes), grade, rollup
schema.py             the item schema: one JSON object per line of items.jsonl (ActiveItem)
loader.py             a dataset dir loaded and checked, with one-line errors
scene.py              the scene model of one panoramic sequence: people, their looks, actions and paths
geometry.py           angles, view spans and box mapping on the panorama strip
render.py             deterministic rendering: background strip, people, views and their boxes
synth.py              random but reproducible scenes
questions.py          question families over a scene, each candidate with its answer and evidence
validation.py         the generator's validation pass: a candidate is kept only if it passes every check
generate.py           a synthetic dataset with exact ground truth (`sample-data --kind activeobs`)
prompting.py          the item's text in the prompt: question, choices, the exact answer format
passive.py            tool mode none: a fixed sample of whole panorama frames, attached
observe_server.py     the `observe` tool: an MCP server over streamable HTTP on loopback, one per item
worldmodel.py         the agent's world model (--world-model on): a graph of what it saw, each fact citing a view
worldmodel_server.py  the world-model tools (get_graph, add_entity, add_attribute, add_relation) as an MCP server
grading.py            the answer graded by its mode, the evidence by where it points; the run's rollup
metrics.py            ActiveObsMetrics: what a record's `metrics` holds
seen.py               whether the evidence rests on what the agent saw (descriptive, beside the paper's metrics)
hooks.py              how runs read: show.py, report.py (+ templates/), compare.py reach the kind through it
evidence.py           reading a run for show and report: an item's observe log and the dataset's truth
graph_view.py         the world model as show and report draw it
show.py               the parts of `show`: totals per family, observations, evidence
report.py             the parts of `report`: the views the agent chose, the evidence against the truth
compare.py            the part of `compare`: answer, evidence, combined and hallucination per family, tested
"""
