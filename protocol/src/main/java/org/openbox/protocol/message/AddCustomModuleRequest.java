package org.openbox.protocol.message;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Spec 4.2.11: install a module; module_content is base64, translation is engine specific.
 * The extension fields {@code module_version}, {@code signature} (base64 Ed25519 signature,
 * see {@link org.openbox.protocol.ModuleSigning}) and {@code key_id} are optional on the wire;
 * an OBI with a trust list refuses a module without a valid signature.
 */
public record AddCustomModuleRequest(
        long xid,
        String moduleName,
        String moduleContent,
        String contentType,
        String contentTransferEncoding,
        JsonNode translation,
        String moduleVersion,
        String signature,
        String keyId)
        implements Message {

    /** An unsigned request (no version, signature or key id). */
    public AddCustomModuleRequest(
            long xid,
            String moduleName,
            String moduleContent,
            String contentType,
            String contentTransferEncoding,
            JsonNode translation) {
        this(xid, moduleName, moduleContent, contentType, contentTransferEncoding, translation, null, null, null);
    }

    @Override
    public String type() {
        return "AddCustomModuleRequest";
    }
}
