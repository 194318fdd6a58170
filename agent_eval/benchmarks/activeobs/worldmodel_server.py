"""The world-model tools (`get_graph`, `add_entity`, `add_attribute`, `add_relation`): an MCP server mounted on the
harness's MCP host beside `observe`, one per item, over the item's WorldGraph (worldmodel.py). Outside the sandbox
like observe: the graph's files are never in the agent's reach. The descriptions say what the tools are for, never
how to answer a question."""

# No `from __future__ import annotations`: the tools' parameter descriptions are objects made per server (passive or
# active), evaluated where each tool is defined.
import json
from typing import Annotated

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from agent_eval.benchmarks.activeobs.worldmodel import GraphRefusal, WorldGraph
from agent_eval.tools.imagetools.mcp_server import fixed_tools_server, plain_tool

SERVER_NAME = "worldmodel"
TOOL_NAMES = ("get_graph", "add_entity", "add_attribute", "add_relation")

CITE_ACTIVE = (
    "The observation this was seen in: the `observation` number the observe tool returned with the view. "
    "Only observations you made can be cited."
)
CITE_PASSIVE = (
    "The attached image this was seen in, by its number in the prompt (Image 1, Image 2, ...). Only the "
    "attached images can be cited."
)
BOX_ACTIVE = "[x1, y1, x2, y2]: the box around it in that view, normalised to 0-1000 (0,0 top left)."
BOX_PASSIVE = (
    "[x1, y1, x2, y2]: the box around it in that image, normalised to 0-1000 on each axis (x 0-1000 spans the "
    "whole panorama's width; 0,0 top left)."
)
PURPOSE = (
    "Your world model: a graph of what you have seen, kept for you outside the conversation. Each fact is tied to "
    "the observation it came from."
)
DESCRIPTIONS = {
    "get_graph": PURPOSE + " Returns the whole graph as you wrote it: entities (with the frame, angle and box they "
    "were seen at), attributes and relations, each with its id and the observation it cites.",
    "add_entity": PURPOSE + " Adds a person or object you saw in one observation, with its box there. Returns its "
    "id (e1, e2, ...) for attributes and relations. The same person seen in another observation may be added "
    "again and related to the first.",
    "add_attribute": PURPOSE + " Adds an attribute of an entity as seen in one observation: its appearance (e.g. "
    "clothing), an action (e.g. walking) or a state (e.g. sitting).",
    "add_relation": PURPOSE + " Adds a relation between two entities as seen in one observation: spatial (e.g. "
    "left of, near), temporal (e.g. before, after) or social (between two persons, e.g. talking to).",
}


def build_server(graph: WorldGraph):
    cite = Field(description=CITE_PASSIVE if graph.passive else CITE_ACTIVE)
    box = Field(description=BOX_PASSIVE if graph.passive else BOX_ACTIVE)

    def guarded(write):
        try:
            return json.dumps(write())
        except GraphRefusal as refusal:
            raise ToolError(str(refusal)) from None

    def get_graph() -> str:
        return json.dumps(graph.get_graph())

    def add_entity(
        observation: Annotated[int, cite],
        kind: Annotated[str, Field(description="person or object")],
        label: Annotated[str, Field(description="A short name of your choosing.")],
        bbox: Annotated[list[float], box],
    ) -> str:
        return guarded(lambda: graph.add_entity(observation, kind, label, bbox))

    def add_attribute(
        entity: Annotated[str, Field(description="The entity's id (from add_entity).")],
        observation: Annotated[int, cite],
        type: Annotated[str, Field(description="appearance, action or state")],  # noqa: A002
        value: Annotated[str, Field(description="The attribute, in a few words.")],
    ) -> str:
        return guarded(lambda: graph.add_attribute(entity, observation, type, value))

    def add_relation(
        subject: Annotated[str, Field(description="The first entity's id.")],
        object: Annotated[str, Field(description="The second entity's id.")],  # noqa: A002
        observation: Annotated[int, cite],
        type: Annotated[str, Field(description="spatial, temporal or social (person to person)")],  # noqa: A002
        predicate: Annotated[str, Field(description="The relation, in a few words (subject predicate object).")],
    ) -> str:
        return guarded(lambda: graph.add_relation(subject, object, observation, type, predicate))

    functions = (get_graph, add_entity, add_attribute, add_relation)
    return fixed_tools_server(SERVER_NAME, [plain_tool(f, f.__name__, DESCRIPTIONS[f.__name__]) for f in functions])
