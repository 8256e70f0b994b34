package org.openbox.api.blocks;

import java.util.List;

/** Every typed block class, one per catalogue block type (a test checks both directions). */
public final class BlockTypes {

    public static final List<Class<? extends ProcessingBlock>> ALL = List.of(
            FromDevice.class, FromDump.class, ToDevice.class, ToDump.class, Discard.class,
            HeaderClassifier.class, RegexClassifier.class, RegexMatcher.class, HeaderPayloadClassifier.class,
            ProtocolAnalyzer.class, SessionClassifier.class, ReadMetadata.class, ContentClassifier.class, StringClassifier.class,
            BpsRateClassifier.class, PpsRateClassifier.class,
            VlanEncapsulate.class, VlanDecapsulate.class, DecIpTtl.class, Ipv4AddressTranslator.class,
            NetworkHeaderFieldsRewriter.class, NetworkDirectionSwap.class, FlowTracker.class,
            GzipDecompressor.class, GzipCompressor.class, HtmlNormalizer.class, JsNormalizer.class,
            EncapsulateMetadata.class, DecapsulateMetadata.class, WriteMetadata.class, Restore.class,
            BeginTransaction.class, CommitTransaction.class, RollbackTransaction.class,
            Alert.class, Log.class, SessionStore.class, Store.class,
            Queue.class, FrontDropQueue.class, RandomEarlyDetectionQueue.class, BpsShaper.class, PpsShaper.class,
            HttpCacheResponder.class);

    private BlockTypes() {
    }
}
