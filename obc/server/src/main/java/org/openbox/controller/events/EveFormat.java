package org.openbox.controller.events;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.openbox.protocol.message.PacketHeaders;

/**
 * One alert as an EVE JSON object (the layout Suricata writes, so the same tools read it):
 * {@code timestamp, flow_id, event_type "alert", src_ip, src_port, dest_ip, dest_port, proto,
 * alert {signature_id, rev, signature, severity, app, block}, dpid, packet}, plus
 * {@code icmp_type}/{@code icmp_code} for ICMP and {@code ether {src_mac, dest_mac, ether_type}}
 * for packets without IP. Fields the alert does not have are left out. Severity is the
 * OpenBox one (1 lowest .. 5 highest).
 */
final class EveFormat {

    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSZ").withZone(ZoneOffset.UTC);

    private final ObjectMapper mapper;

    EveFormat(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    ObjectNode toEve(AlertRecord r) {
        ObjectNode o = mapper.createObjectNode();
        o.put("timestamp", TIME.format(r.time()));
        if (r.flowId() != 0) {
            o.put("flow_id", r.flowId());
        }
        o.put("event_type", "alert");
        PacketHeaders h = r.headers();
        putText(o, "src_ip", h.srcIp());
        putInt(o, "src_port", h.srcPort());
        putText(o, "dest_ip", h.dstIp());
        putInt(o, "dest_port", h.dstPort());
        if (h.ipProto() != null) {
            o.put("proto", proto(h.ipProto()));
        }
        putInt(o, "icmp_type", h.icmpType());
        putInt(o, "icmp_code", h.icmpCode());
        if (h.srcIp() == null && (h.ethSrc() != null || h.ethType() != null)) {
            ObjectNode ether = o.putObject("ether");
            putText(ether, "src_mac", h.ethSrc());
            putText(ether, "dest_mac", h.ethDst());
            putInt(ether, "ether_type", h.ethType());
        }
        ObjectNode alert = o.putObject("alert");
        if (r.rule() != null) {
            alert.put("signature_id", r.rule().id());
            alert.put("rev", r.rule().rev());
            alert.put("signature", r.rule().message());
        } else {
            alert.put("signature", r.message());
        }
        alert.put("severity", r.severity());
        putText(alert, "app", r.app());
        putText(alert, "block", r.block() != null ? r.block() : r.mergedBlock());
        o.put("dpid", r.dpid());
        putText(o, "packet", r.packet());
        return o;
    }

    static String proto(int p) {
        return switch (p) {
            case 1 -> "ICMP";
            case 6 -> "TCP";
            case 17 -> "UDP";
            case 58 -> "IPv6-ICMP";
            case 132 -> "SCTP";
            default -> Integer.toString(p);
        };
    }

    private static void putText(ObjectNode o, String name, String v) {
        if (v != null) {
            o.put(name, v);
        }
    }

    private static void putInt(ObjectNode o, String name, Integer v) {
        if (v != null) {
            o.put(name, v.intValue());
        }
    }
}
