/* SPDX-License-Identifier: MIT */
/* events.c — MD00548 Table 3, transcribed row by row, and the source notation. */
#include "events.h"

#include <stdlib.h>
#include <string.h>

#define T OG_MIPS_PER_TC
#define V OG_MIPS_PER_VPE
#define P OG_MIPS_PER_CORE
#define E OG_MIPS_EVEN
#define O OG_MIPS_ODD
#define A OG_MIPS_ANY

/* Events 0, 1, 11 and 12 name the same thing on both banks (Table 3; the
 * Linux driver treats 0, 1 and 11 as "either counter"), so one raw counter
 * stands for each and the planner may put it on whichever bank is free. */
const struct og_mips_event og_mips_events[] = {
	{0, A, P, "Cycles", "cycles", "Cycles"},
	{1, A, T, "Instructions", "all instructions", "Instructions completed"},
	{2, E, T, "BranchInstructions", "branch instructions", "Branch instructions"},
	{2, O, T, "BranchMispredictions", "branch mispredictions", "Branch mispredictions"},
	{3, E, T, "ReturnInstructions", "jr $31 instructions", "jr $31 (return) instructions"},
	{3, O, T, "ReturnMispredictions", "jr $31 mispredictions", "jr $31 mispredictions"},
	{4, E, T, "IndirectJumpInstructions", "jr $xx instructions",
	 "jr $xx (not $31) instructions"},
	{4, O, T, "ReturnNotPredicted", "jr $31 not predicted",
	 "jr $31 not predicted (stack mismatch)"},
	{5, E, T, "ITLBAccesses", "ITLB accesses", "ITLB accesses"},
	{5, O, T, "ITLBMisses", "ITLB misses", "ITLB misses"},
	{6, E, T, "DTLBAccesses", "DTLB accesses", "DTLB accesses"},
	{6, O, T, "DTLBMisses", "DTLB misses", "DTLB misses"},
	{7, E, T, "JTLBInstructionAccesses", "JTLB instruction accesses",
	 "JTLB instruction accesses"},
	{7, O, T, "JTLBInstructionMisses", "JTLB instruction misses", "JTLB instruction misses"},
	{8, E, T, "JTLBDataAccesses", "JTLB data accesses", "JTLB data accesses"},
	{8, O, T, "JTLBDataMisses", "JTLB data misses", "JTLB data misses"},
	{9, E, T, "ICacheAccesses", "I-cache accesses", "Instruction cache accesses"},
	{9, O, T, "ICacheMisses", "I-cache misses", "Instruction cache misses"},
	{10, E, T, "DCacheAccesses", "D-cache accesses", "Data cache accesses"},
	{10, O, T, "DCacheWritebacks", "D-cache writebacks", "Data cache writebacks"},
	{11, A, T, "DCacheMisses", "D-cache misses", "Data cache misses"},
	{12, A, P, "ExternalInterventions", "external intervention requests",
	 "External intervention requests"},
	{13, E, P, "InterventionHitsDirty", "intervention hits dirty",
	 "External intervention hits dirty"},
	{13, O, P, "InterventionHitsClean", "intervention hits clean",
	 "External intervention hit clean"},
	{14, E, T, "FPUInstructions", "FPU instructions", "FPU instructions completed"},
	{14, O, T, "IntegerInstructions", "integer instructions", "Integer instructions completed"},
	{15, E, T, "Loads", "loads", "Loads completed"},
	{15, O, T, "Stores", "stores", "Stores completed"},
	{16, E, T, "JumpInstructions", "j/jal instructions", "j/jal completed"},
	{16, O, T, "MIPS16Instructions", "MIPS16 instructions", "MIPS16 instructions completed"},
	{17, E, T, "NoOps", "no-ops", "No-ops completed"},
	{17, O, T, "MulDivInstructions", "integer multiply/divide",
	 "Integer multiply/divide completed"},
	{18, E, P, "AllStalls", "All stalls", "All stalls (no action in RF pipeline stage)"},
	{18, O, T, "ReplayTraps", "Replays", "Replay traps (other than uTLB)"},
	{19, E, T, "SCInstructions", "sc instructions", "sc instructions completed"},
	{19, O, T, "SCFailures", "sc failures",
	 "sc instructions failed (because link bit cleared)"},
	{20, E, T, "Prefetches", "prefetches", "Prefetch instructions completed"},
	{20, O, T, "PrefetchHits", "prefetch hits",
	 "Prefetch instructions completed with cache hit"},
	{21, E, P, "L2CacheWritebacks", "L2 writebacks", "L2 cache writebacks"},
	{21, O, P, "L2CacheAccesses", "L2 accesses", "L2 cache accesses"},
	{22, E, P, "L2CacheMisses", "L2 misses", "L2 cache misses"},
	{22, O, P, "L2CacheMissesOdd", "L2 misses (odd)", "L2 cache misses"},
	{23, E, T, "ExceptionsTaken", "exceptions", "Exceptions taken"},
	{24, E, T, "CacheFixups", "LSU replay stalls", "Cache fixup"},
	{24, O, T, "Refetches", "Refetches", "Refetches"},
	{25, E, P, "IFUStalls", "No instructions available", "IFU stalls"},
	{25, O, P, "ALUStalls", "ALU stalls", "ALU stalls"},
	{26, E, T, "DSPInstructions", "DSP instructions", "DSP instructions completed"},
	{26, O, T, "ALUDSPSaturations", "ALU-DSP saturations", "ALU-DSP saturations done"},
	{27, O, T, "MDUDSPSaturations", "MDU-DSP saturations", "MDU-DSP saturations done"},
	{28, E, T, "ImplPMEvent", "PM event", "Implementation-specific PM event"},
	{28, O, T, "ImplCP2Event", "CP2 event", "Implementation-specific CP2 event"},
	{29, E, T, "ImplISPRAMEvent", "ISPRAM event", "Implementation-specific ISPRAM event"},
	{29, O, T, "ImplDSPRAMEvent", "DSPRAM event", "Implementation-specific DSPRAM event"},
	{30, E, T, "ImplCorExtendEvent", "CorExtend event",
	 "Implementation-specific CorExtend event"},
	{30, O, T, "ImplSystemEvent", "system event", "Implementation-specific system event"},
	{31, E, T, "ImplXYMEvent", "XYM event", "Implementation-specific XYM event"},
	{31, O, T, "ImplITCEvent", "ITC event", "Implementation-specific ITC event"},
	{32, E, T, "ITCLoads", "ITC loads", "ITC loads"},
	{32, O, T, "ITCStores", "ITC stores", "ITC stores"},
	{33, E, T, "UncachedLoads", "uncached loads", "Uncached loads"},
	{33, O, T, "UncachedStores", "uncached stores", "Uncached stores"},
	{34, E, T, "ForkInstructions", "fork instructions", "fork instructions completed"},
	{34, O, T, "YieldInstructions", "yield instructions", "yield instruction completed"},
	{35, E, T, "CP2ArithInstructions", "CP2 arithmetic instructions",
	 "CP2 arithmetic instructions completed"},
	{35, O, T, "CP2MoveInstructions", "CP2 to/from instructions",
	 "CP2 to/from instructions completed"},
	{37, E, T, "ICacheMissStallCycles", "L1 I-$ miss stalls",
	 "Instruction cache miss stall cycles"},
	{37, O, T, "DCacheMissStallCycles", "L1 D-$ miss stalls", "Data cache miss stall cycles"},
	{38, E, P, "L2InstructionMissStallCycles", "L2 I-miss stalls",
	 "L2 cache instruction miss stall cycles"},
	{38, O, P, "L2DataMissStallCycles", "L2 D-miss stalls", "L2 cache data miss stall cycles"},
	{39, E, P, "DCacheMissCycles", "D-$ miss pending", "Data cache miss cycles"},
	{39, O, P, "L2MissCycles", "L2 miss cycles", "L2 miss cycles"},
	{40, E, T, "UncachedStallCycles", "uncached stalls", "Uncached stall cycles"},
	{40, O, T, "ITCStallCycles", "ITC stalls", "ITC stall cycles"},
	{41, E, T, "MDUStallCycles", "MDU stalls", "MDU stall cycles"},
	{41, O, T, "FPUStallCycles", "FPU stalls", "FPU stall cycles"},
	{42, E, T, "CP2StallCycles", "CP2 stalls", "CP2 stall cycles"},
	{42, O, T, "CorExtendStallCycles", "CorExtend stalls", "CorExtend stall cycles"},
	{43, E, T, "ISPRAMStallCycles", "ISPRAM stalls", "ISPRAM stall cycles"},
	{43, O, T, "DSPRAMStallCycles", "DSPRAM stalls", "DSPRAM stall cycles"},
	{44, E, P, "CacheInstructionStallCycles", "cache instruction stalls",
	 "cache instruction stall cycles"},
	{45, E, T, "LoadToUseStalls", "load-to-use stalls", "Load to Use stalls"},
	{45, O, T, "ALUToAGENStalls", "ALU-to-AGEN stalls", "ALU to AGEN stalls"},
	{46, E, T, "OtherInterlockStalls", "other interlock stalls", "Other interlock stalls"},
	/* Odd 46: the seed's Table 3 prints its type garbled ("Pi"); Linux's
	 * perf_event_mipsxx.c 34K range table (raw 174 = odd 46) counts it
	 * processor-wide, which is what the hardware's own filter does. */
	{46, O, P, "BranchMispredictStalls", "branch mispredict stalls", "Branch mispredict stalls"},
	{47, E, V, "RelaxBubbles", "relax bubbles", "Relax bubbles"},
	{48, E, T, "IFUFBFullRefetches", "IFU FB full refetches", "IFU FB full refetches"},
	{48, O, P, "FBEntriesAllocated", "FB entries allocated", "FB entry allocated"},
	{50, E, P, "FSBUnderQuarter", "FSB < 1/4 full", "FSB < 1/4 full"},
	{50, O, P, "FSBQuarterToHalf", "FSB 1/4-1/2 full", "FSB 1/4-1/2 full"},
	{51, E, P, "FSBOverHalf", "FSB > 1/2 full", "FSB > 1/2 full"},
	{51, O, P, "FSBFullStalls", "FSB full stalls", "FSB full pipeline stalls"},
	{52, E, P, "LDQUnderQuarter", "LDQ < 1/4 full", "LDQ < 1/4 full"},
	{52, O, P, "LDQQuarterToHalf", "LDQ 1/4-1/2 full", "LDQ 1/4-1/2 full"},
	{53, E, P, "LDQOverHalf", "LDQ > 1/2 full", "LDQ > 1/2 full"},
	{53, O, P, "LDQFullStalls", "LDQ full stalls", "LDQ full pipeline stalls"},
	{54, E, P, "WBBUnderQuarter", "WBB < 1/4 full", "WBB < 1/4 full"},
	{54, O, P, "WBBQuarterToHalf", "WBB 1/4-1/2 full", "WBB 1/4-1/2 full"},
	{55, E, P, "WBBOverHalf", "WBB > 1/2 full", "WBB > 1/2 full"},
	{55, O, P, "WBBFullStalls", "WBB full stalls", "WBB full pipeline stalls"},
};
const size_t og_mips_event_count = sizeof og_mips_events / sizeof og_mips_events[0];

const struct og_mips_event *og_mips_event_find(unsigned bank, unsigned event)
{
	for (size_t i = 0; i < og_mips_event_count; i++) {
		const struct og_mips_event *e = &og_mips_events[i];
		if (e->event == event && (e->bank == bank || e->bank == OG_MIPS_ANY))
			return e;
	}
	return NULL;
}

const struct og_mips_event *og_mips_event_of_raw(uint32_t raw_id)
{
	unsigned bank = og_mips_raw_bank(raw_id), event = og_mips_raw_event(raw_id);
	if (raw_id >> 9 || bank > OG_MIPS_ANY)
		return NULL;
	const struct og_mips_event *e = og_mips_event_find(bank == OG_MIPS_ANY ? 0 : bank, event);
	return e && (bank != OG_MIPS_ANY || e->bank == OG_MIPS_ANY) ? e : NULL;
}

bool og_mips_parse_source(const char *source, unsigned *bank, unsigned *event, const char **why)
{
	static const char *const prefixes[] = {"even:", "odd:", "any:"};
	for (unsigned b = 0; b < 3; b++) {
		size_t len = strlen(prefixes[b]);
		if (strncmp(source, prefixes[b], len) != 0)
			continue;
		const char *digits = source + len;
		char *end = NULL;
		unsigned long n = 0;
		if (*digits >= '0' && *digits <= '9' && strlen(digits) <= 3)
			n = strtoul(digits, &end, 10);
		if (!end || *end || n > OG_MIPS_MAX_EVENT) {
			*why = "the event number after the bank must be decimal 0..127";
			return false;
		}
		*bank = b;
		*event = (unsigned)n;
		return true;
	}
	*why = "a mips source is even:N, odd:N or any:N";
	return false;
}

/* Counters each bank may use: even = 0 and 2, odd = 1 and 3. */
static unsigned bank_mask(unsigned bank)
{
	return bank == OG_MIPS_EVEN ? 0x5u : bank == OG_MIPS_ODD ? 0xau : 0xfu;
}

/* Kuhn's augmenting path: can event i take a counter, possibly moving others? */
static bool augment(size_t i, const unsigned *mask, int *owner, unsigned *seen)
{
	for (int c = 0; c < OG_MIPS_COUNTERS; c++) {
		if (!(mask[i] & (1u << c)) || (*seen & (1u << c)))
			continue;
		*seen |= 1u << c;
		if (owner[c] < 0 || augment((size_t)owner[c], mask, owner, seen)) {
			owner[c] = (int)i;
			return true;
		}
	}
	return false;
}

bool og_mips_assign(const uint32_t *raw_ids, size_t n, int *counter_of)
{
	if (n > OG_MIPS_COUNTERS)
		return false;
	unsigned mask[OG_MIPS_COUNTERS];
	int owner[OG_MIPS_COUNTERS] = {-1, -1, -1, -1};
	for (size_t i = 0; i < n; i++) {
		unsigned bank = og_mips_raw_bank(raw_ids[i]);
		if (bank > OG_MIPS_ANY)
			return false;
		mask[i] = bank_mask(bank);
	}
	for (size_t i = 0; i < n; i++) {
		unsigned seen = 0;
		if (!augment(i, mask, owner, &seen))
			return false;
	}
	for (int c = 0; c < OG_MIPS_COUNTERS; c++)
		if (owner[c] >= 0 && counter_of)
			counter_of[owner[c]] = c;
	return true;
}

static size_t max_size(size_t a, size_t b)
{
	return a > b ? a : b;
}

size_t og_mips_plan(const uint32_t *raw_ids, size_t n, unsigned *pass_of, int *counter_of)
{
	if (n == 0 || n > 256)
		return 0;
	/* Distinct ids, then E even-only, O odd-only, A either-bank: the fewest
	 * passes p satisfies E <= 2p, O <= 2p and E + O + A <= 4p, and that p
	 * is always enough because either-bank events fill any free counter. */
	size_t first[256];
	size_t per_bank[3] = {0, 0, 0};
	for (size_t i = 0; i < n; i++) {
		first[i] = i;
		for (size_t j = 0; j < i; j++)
			if (raw_ids[j] == raw_ids[i]) {
				first[i] = j;
				break;
			}
		unsigned bank = og_mips_raw_bank(raw_ids[i]);
		if (bank > OG_MIPS_ANY)
			return 0;
		if (first[i] == i)
			per_bank[bank]++;
	}
	size_t p = max_size((per_bank[0] + 1) / 2, (per_bank[1] + 1) / 2);
	p = max_size(p, (per_bank[0] + per_bank[1] + per_bank[2] + 3) / 4);

	/* Bank b's k-th event: pass k / 2, counter b + 2 * (k % 2). */
	size_t used[2] = {0, 0}, any_slot = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned bank = og_mips_raw_bank(raw_ids[i]);
		if (first[i] != i || bank == OG_MIPS_ANY)
			continue;
		pass_of[i] = (unsigned)(used[bank] / 2);
		counter_of[i] = (int)(used[bank] % 2) * 2 + (int)bank;
		used[bank]++;
	}
	/* Either-bank events take the free counters left over, pass by pass. */
	for (size_t i = 0; i < n; i++) {
		if (first[i] != i || og_mips_raw_bank(raw_ids[i]) != OG_MIPS_ANY)
			continue;
		for (;; any_slot++) {
			size_t pass = any_slot / 4, c = any_slot % 4;
			/* counter c of pass `pass` is the (2*pass + c/2)-th slot of its bank */
			if (2 * pass + c / 2 >= used[c % 2])
				break;
		}
		pass_of[i] = (unsigned)(any_slot / 4);
		counter_of[i] = (int)(any_slot % 4);
		any_slot++;
	}
	for (size_t i = 0; i < n; i++)
		if (first[i] != i) {
			pass_of[i] = pass_of[first[i]];
			counter_of[i] = counter_of[first[i]];
		}
	return p;
}
