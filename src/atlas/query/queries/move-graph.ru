# Replace the graph ?target by the graph ?source, in one update (used by atlas publish).
#
# MOVE drops ?target, copies ?source into it and drops ?source; a SPARQL 1.1 store runs an update
# request as a whole. The two graph IRIs are bound by atlas.publish as validated terms.
MOVE ?source TO ?target
