package dev.piper.hwmodel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class FleetTest {

    @Test
    void aFleetIsCeilOfTargetOverOneDeviceWithItsEnergyAndPricePerMillionRows() {
        // 2M rows/s from devices of 750k rows/s: 3 devices of 25 W = 75 W
        Fleet f = Fleet.of(2e6, 750e3, 25, 0.0733, 4000, 3);
        assertThat(f.devices()).isEqualTo(3);
        assertThat(f.watts()).isEqualTo(75);
        // 75 W for the 0.5 s a million rows take: 37.5 J
        assertThat(f.joulesPerMillionRows()).isCloseTo(37.5, within(1e-9));
        assertThat(f.energyDollarsPerMillionRows()).isCloseTo(37.5 / 3.6e6 * 0.0733, within(1e-15));
        // $12,000 written off over the 3 years' 1.89e14 rows
        assertThat(f.capexDollarsPerMillionRows())
                .isCloseTo(12_000 / (2e6 * 3 * 365 * 24 * 3600.0) * 1e6, within(1e-15));
    }

    @Test
    void unknownPowerOrPriceStaysUnknownAndATargetMustBePositive() {
        Fleet f = Fleet.of(1e6, 300e3, Double.NaN, 0.0733, Double.NaN, 3);
        assertThat(f.devices()).isEqualTo(4);
        assertThat(f.watts()).isNaN();
        assertThat(f.energyDollarsPerMillionRows()).isNaN();
        assertThat(f.capexDollarsPerMillionRows()).isNaN();
        assertThatThrownBy(() -> Fleet.of(0, 1, 1, 1, 1, 1)).hasMessageContaining("positive");
    }
}
