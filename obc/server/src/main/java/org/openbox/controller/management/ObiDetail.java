package org.openbox.controller.management;

import com.fasterxml.jackson.databind.JsonNode;

/** GET /api/obis/{dpid}: the listing entry plus the capabilities from Hello. */
public record ObiDetail(ObiView obi, JsonNode capabilities) {}
