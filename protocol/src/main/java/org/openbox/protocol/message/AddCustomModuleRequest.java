package org.openbox.protocol.message;

import com.fasterxml.jackson.databind.JsonNode;

/** Spec 4.2.11: install a module; module_content is base64, translation is engine specific. */
public record AddCustomModuleRequest(long xid, String moduleName, String moduleContent, String contentType, String contentTransferEncoding, JsonNode translation) implements Message {
    @Override
    public String type() {
        return "AddCustomModuleRequest";
    }
}
